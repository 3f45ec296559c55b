"""What the documentation names exists: modules, attributes, repository paths and the targets of its links.

The documentation is README.md, docs/*.md and every shared/**/README.md. In its inline code spans:

* every `hallubench.x.y` (or `hallubench.x.y:attr`) must import, and the attribute after the module exist;
* every repository path (a span that starts with a top folder of this repository, such as
  `shared/tooling/rescore/problems.py`, or with a folder of shared/, such as `tooling/` or `hallumaze/`, read
  under shared/) must exist; a protocol id such as `hallumaze/v2` is no path, and a path under a folder shared/ no
  longer has (a frozen file's `maze/`) is not read.

Spans holding a placeholder (`<package>`, `*`, `...`, `…`) are templates and are not resolved. Every relative
Markdown link must reach a file, and a `#fragment` into a Markdown file one of its headings.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOP_FOLDERS = ("shared", "tests", "scripts", "docs", "tasks", "frozen_cases", ".ci")
PLACEHOLDERS = ("<", "*", "...", "…")

FENCE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$", re.MULTILINE | re.DOTALL)
SPAN = re.compile(r"(?<!`)(`+)(?!`)((?:(?!\n\s*\n).)+?)(?<!`)\1(?!`)", re.DOTALL)
MODULE = re.compile(r"(?<![\w.])hallubench(?:\.[A-Za-z_]\w*)+(?::[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)?")
PATH = re.compile(r"\.?[\w.-]+(?:/[\w.-]+)+/?")
PROTOCOL = re.compile(r"[a-z][a-z-]*/v\d+")  # a protocol id (`hallumaze/v2`), not a path
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.MULTILINE)


def documents() -> list[Path]:
    found = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "shared").rglob("README.md"))]
    return [path for path in found if path.is_file()]


def _prose(path: Path) -> str:
    """The document without its fenced code blocks (their lines kept empty, so line numbers hold)."""
    text = path.read_text(encoding="utf-8")
    return FENCE.sub(lambda match: "\n" * match.group(0).count("\n"), text)


def spans(path: Path) -> Iterator[tuple[int, str]]:
    """Every inline code span of `path` with its line number, placeholders left out."""
    text = _prose(path)
    for match in SPAN.finditer(text):
        content = match.group(2).strip()
        if not any(mark in content for mark in PLACEHOLDERS):
            yield text.count("\n", 0, match.start()) + 1, content


def resolve(reference: str) -> Any:
    """The object `hallubench.a.b` or `hallubench.a.b:attr` names, importing the longest module prefix."""
    module_part, _, attribute = reference.partition(":")
    parts = module_part.split(".")
    for cut in range(len(parts), 0, -1):
        name = ".".join(parts[:cut])
        try:
            found: Any = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name is None or not name.startswith(error.name):
                raise  # the module exists but imports something missing: a real failure
            continue
        for attr in [*parts[cut:], *(attribute.split(".") if attribute else [])]:
            found = getattr(found, attr)
        return found
    raise ModuleNotFoundError(reference)


def _where(path: Path, line: int) -> str:
    return f"{path.relative_to(ROOT)}:{line}"


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(_prose(path)):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def test_the_documentation_is_there() -> None:
    names = {str(path.relative_to(ROOT)) for path in documents()}
    assert {"README.md", "docs/cli.md", "docs/performance.md"} <= names
    for package in ("hallumaze", "hallucinated_packages", "misled_tests"):
        assert f"shared/{package}/README.md" in names


def test_every_module_path_in_the_documentation_imports() -> None:
    problems = []
    for path in documents():
        for line, content in spans(path):
            for reference in MODULE.findall(content):
                try:
                    resolve(reference.rstrip("."))
                except Exception as error:  # every failure is reported, with its kind
                    problems.append(f"{_where(path, line)}: `{reference}`: {type(error).__name__}: {error}")
    assert problems == []


def test_every_repository_path_in_the_documentation_exists() -> None:
    problems = []
    checked = 0
    for path in documents():
        for line, content in spans(path):
            if not PATH.fullmatch(content) or PROTOCOL.fullmatch(content):
                continue
            first = content.split("/", 1)[0]
            if first in TOP_FOLDERS:
                target = ROOT / content
            elif first and (ROOT / "shared" / first).is_dir():
                target = ROOT / "shared" / content
            else:
                continue
            checked += 1
            if not target.exists():
                problems.append(f"{_where(path, line)}: `{content}` does not exist")
    assert checked > 50, "the documentation names fewer repository paths than expected: is the pattern right?"
    assert problems == []


def test_every_relative_link_reaches_its_file_and_heading() -> None:
    problems = []
    for path in documents():
        text = _prose(path)
        for match in LINK.finditer(text):
            target = match.group(1)
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:
            file_part, _, fragment = target.partition("#")
            destination = (path.parent / file_part).resolve() if file_part else path
            line = text.count("\n", 0, match.start()) + 1
            if not destination.exists():
                problems.append(f"{_where(path, line)}: link to {target}: no such file")
            elif fragment and destination.suffix == ".md" and fragment not in anchors(destination):
                problems.append(f"{_where(path, line)}: link to {target}: no such heading")
    assert problems == []


@pytest.mark.parametrize(
    ("reference", "exists"),
    [
        ("hallubench.tooling.rescore.problems", True),
        ("hallubench.tooling.specs:ProtocolSpec", True),
        ("hallubench.hallumaze.compact.read_cells", True),
        ("hallubench.tooling.no_such_module", False),
        ("hallubench.tooling.specs:NoSuchThing", False),
    ],
)
def test_resolve_finds_modules_and_attributes(reference: str, exists: bool) -> None:
    if exists:
        assert resolve(reference) is not None
    else:
        with pytest.raises((ModuleNotFoundError, AttributeError)):
            resolve(reference)
