"""Decoding kbench's double-encoded message text.

kbench writes a message's text in one of two ways (kaggle-benchmarks 0.6.2,
`kaggle/serialization.py:_message_to_proto_content`):

* `str` content verbatim. Every plain `llm.prompt(str)`, `kbench.user.send(str)` and
  `kbench.system.send(str)` message, and the reply to a plain prompt, is stored exactly; its
  stored text is the ground truth and needs no decoding.
* any other content (structured replies from `schema=`) as `json.dumps(payload)`, where the
  payload is usually itself a JSON string, so the file holds a JSON string literal such as
  `"{\\"value\\": 7}"`. The file does not say which way was used ("readers decode twice").

`decode_payload_text` undoes the second way when the stored text is exactly one JSON string
literal (`"..."`, as `json.dumps` writes it). This is a guess: a plain reply that happens to be
a quoted JSON string (a model answering `"yes"`) is decoded too. Use `Message.text` for byte
comparisons and `Message.decoded_text` only to read structured replies.
"""

from __future__ import annotations

import json


def decode_payload_text(text: str) -> str:
    """The payload a double-encoded text stands for, or `text` itself when it is not one."""
    if len(text) < 2 or not (text.startswith('"') and text.endswith('"')):
        return text
    try:
        decoded = json.loads(text)
    except ValueError:
        return text
    return decoded if isinstance(decoded, str) else text
