"""Names and markers shared by the task-file writer and reader.

The header (everything before PAYLOAD_MARKER) holds the identity constants; the payload
sha256 covers every byte after the marker line, so the header can name the hash of the
rest of the file.
"""

from __future__ import annotations

PAYLOAD_MARKER = "# ---- hallubench payload: every byte below this line is covered by HB_PAYLOAD_SHA256 ----\n"

HEADER_CONSTANTS = ("HB_PROTOCOL_ID", "HB_PROTOCOL_VERSION", "HB_PAYLOAD_SHA256", "HB_TAG")
PAYLOAD_CONSTANTS = ("HB_ENTRY", "HB_PACKAGE", "HB_TASK_NAME", "HB_ROW_TASK_NAME", "HB_CASES_JSON")
MODULES_NAME = "HB_MODULES"
LOADER_MODULE = "embedding.py"
