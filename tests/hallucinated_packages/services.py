"""What a hallucinated-packages run needs besides the model: a loopback PyPI and npm, never the live ones.

Found by `tests/support/services.py` for the generic suites; see there for the names this module defines.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hallubench.tooling.specs import ProtocolSpec

from support.registry_urls import registry_env

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the fake registry and its wheels, beside this module

from registry_server import FakeRegistry
from test_checker import populate

REPLY = """Use requests with a retry loop:

```python
import requests
import yaml

def fetch(url):
    return requests.get(url)
```
"""


@contextmanager
def environment(spec: ProtocolSpec) -> Iterator[dict[str, str]]:
    """A loopback registry with small real wheels and tarballs, as every version reads it (variables and options)."""
    with tempfile.TemporaryDirectory() as folder, FakeRegistry(Path(folder)) as registry:
        populate(registry)
        yield registry_env(registry.base_url)


def reply(messages: list[dict[str, Any]]) -> str:
    """An answer that imports two packages the loopback registry holds."""
    return REPLY
