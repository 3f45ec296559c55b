"""A report page read back as the tests need it: every tag with its attributes, the text, the embedded data."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from typing import Any


class Page(HTMLParser):
    """Every tag with its attributes, the text of each element id, and the embedded data."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.data_text = ""
        self._in_data = False
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_data = tag == "script" and dict(attrs).get("id") == "hb-data"

    def handle_endtag(self, tag: str) -> None:
        self._in_data = False

    def handle_data(self, data: str) -> None:
        if self._in_data:
            self.data_text += data
        else:
            self.text.append(data)

    def all(self, tag: str, **wanted: str) -> list[dict[str, str | None]]:
        return [a for t, a in self.tags if t == tag and all(a.get(k) == v for k, v in wanted.items())]

    @property
    def data(self) -> Any:
        return json.loads(self.data_text)
