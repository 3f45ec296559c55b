"""Canonical JSON and sha256: the one way this project fingerprints prompts, cases and files.

Canonical means sorted keys, fixed separators, UTF-8 and no ASCII escaping, so the same value
hashes the same on every machine and in every Python version (dict order never leaks in).
Embedded into task files: standard library only.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(value: Any) -> str:
    """Serialise `value` so that equal values always give equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def sha256_bytes(data: bytes) -> str:
    """Hex sha256 of raw bytes."""
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    """Hex sha256 of text encoded as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_json(value: Any) -> str:
    """Hex sha256 of the canonical JSON form of `value`."""
    return sha256_text(canonical_json(value))
