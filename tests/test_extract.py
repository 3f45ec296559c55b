"""Golden model replies for `hallubench.extract` (tests/data/extract/) and fence properties."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hallubench.extract import extract_code, find_blocks, normalize_language

DATA = Path(__file__).parent / "data" / "extract"
CASES: list[dict[str, Any]] = json.loads((DATA / "cases.json").read_text(encoding="utf-8"))


def _reply(case: dict[str, Any]) -> str:
    text = (DATA / case["reply"]).read_text(encoding="utf-8")
    return text.replace("\n", "\r\n") if case["crlf"] else text


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_extract_golden(case: dict[str, Any]) -> None:
    result = extract_code(_reply(case), case["language"])
    assert result.found is case["expected_found"], result.provenance
    assert result.rule == case["expected_rule"], result.provenance
    assert result.language == case["language"]
    if case["expected_code"] is None:
        assert result.code == ""
    else:
        assert result.code == (DATA / case["expected_code"]).read_text(encoding="utf-8")
    assert [block.start_line for block in result.blocks] == case["expected_block_lines"]
    assert result.truncated is case["expected_truncated"]
    for fragment in case["expected_provenance_contains"]:
        assert fragment in result.provenance


def test_every_reply_and_expected_file_is_used() -> None:
    used = {c["reply"] for c in CASES} | {c["expected_code"] for c in CASES if c["expected_code"]}
    on_disk = {str(p.relative_to(DATA)) for p in DATA.rglob("*") if p.is_file() and p.name != "cases.json"}
    assert on_disk == used
    assert all(len(c["note"]) > 20 for c in CASES)


def test_found_code_of_python_golden_cases_parses() -> None:
    import ast

    for case in CASES:
        if case["language"] == "python" and case["expected_found"] and not case["expected_truncated"]:
            ast.parse(extract_code(_reply(case), "python").code)


def test_find_blocks_fields() -> None:
    reply = "intro\n  ~~~~TypeScript {linenos}\n  let a = 1;\n   b\n ~~~~~\n```\nx\n"
    first, second = find_blocks(reply)
    assert first.tag == "TypeScript" and first.language == "typescript"
    assert first.fence == "~~~~" and first.start_line == 2 and first.closed and first.index == 0
    assert first.code == "let a = 1;\n b\n"  # two spaces of fence indent removed, no more
    assert second.tag is None and second.language is None
    assert second.index == 1 and second.start_line == 6 and not second.closed and second.code == "x\n"


def test_backticks_in_info_string_is_not_a_fence() -> None:
    assert find_blocks("Use ```inline``` here\nand ``` `x` ```\n") == []


def test_a_closing_fence_cannot_carry_a_tag() -> None:
    (block,) = find_blocks("```\n```python\nx = 1\n```\n")
    assert block.code == "```python\nx = 1\n"


@pytest.mark.parametrize(
    ("tag", "language"),
    [
        ("python", "python"),
        ("Py", "python"),
        ("PYTHON3", "python"),
        ("{.python}", "python"),
        ("python:test_x.py", "python"),
        ("JS", "javascript"),
        ("node", "javascript"),
        ("cjs", "javascript"),
        ("tsx", "typescript"),
        ("Bash", "bash"),
        ("pycon", "pycon"),
        ("", None),
        (None, None),
    ],
)
def test_normalize_language(tag: str | None, language: str | None) -> None:
    assert normalize_language(tag) == language


def test_unknown_language_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="language must be one of"):
        extract_code("```go\nfunc main() {}\n```", "go")


# --- properties -------------------------------------------------------------------------------

CODE_LINES = st.lists(
    st.text(st.characters(blacklist_categories=["Cs", "Cc"]), max_size=30).filter(
        lambda line: not line.lstrip(" ").startswith(("```", "~~~"))
    ),
    min_size=1,
    max_size=8,
)
TAGS = ["python", "py", "Python3", "js", "JavaScript", "mjs", "ts", "TSX", "bash", "json", "text"]


@settings(max_examples=300, deadline=None)
@given(
    lines=CODE_LINES,
    tag=st.sampled_from(TAGS),
    char=st.sampled_from("`~"),
    length=st.integers(3, 6),
    indent=st.integers(0, 3),
    newline=st.sampled_from(["\n", "\r\n"]),
    before=st.sampled_from(["", "Here you go:\n\n", "Some *prose* with `inline` code.\n"]),
    after=st.sampled_from(["", "\nHope this helps.\n", "\n"]),
)
def test_any_fenced_code_round_trips(
    lines: list[str], tag: str, char: str, length: int, indent: int, newline: str, before: str, after: str
) -> None:
    fence = char * length
    pad = " " * indent
    body = "\n".join(pad + line for line in lines)
    reply = f"{before}{pad}{fence}{tag}\n{body}\n{pad}{fence}\n{after}".replace("\n", newline)
    (block,) = find_blocks(reply)
    assert block.code == "".join(line + "\n" for line in lines)
    assert block.tag == tag and block.closed and block.fence == fence
    wanted = normalize_language(tag)
    if wanted in ("python", "javascript", "typescript"):
        result = extract_code(reply, wanted)
        assert result.found and result.rule == "tagged" and result.code == block.code
    else:
        for language in ("python", "javascript", "typescript"):
            assert not extract_code(reply, language).found  # shell/json/text blocks are never taken


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=300), language=st.sampled_from(["python", "javascript", "typescript"]))
def test_extract_never_raises_and_always_explains(text: str, language: str) -> None:
    result = extract_code(text, language)
    assert result.provenance
    assert result.found == bool(result.code) or result.rule in ("tagged", "sibling-tagged")


def test_module_works_when_embedded_under_another_package() -> None:
    """Task files carry this module as source; it must run there with the standard library alone."""
    import ast
    import sys

    import hallubench.extract
    from hallubench.embedding import EmbeddedModules

    source = Path(hallubench.extract.__file__).read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            assert all(alias.name.split(".")[0] in sys.stdlib_module_names for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            assert (node.module or "").split(".")[0] in sys.stdlib_module_names, node.module
    from pathlib import PurePosixPath

    from hallubench.tooling.taskfile.closure import module_closure

    shared = Path(hallubench.extract.__file__).parent
    closure = module_closure(shared, PurePosixPath("extract.py"))
    sources = {str(path): (shared / path).read_text(encoding="utf-8") for path in closure}
    finder = EmbeddedModules("frozen_extract_probe", sources)
    try:
        embedded = finder.load("extract")
        result = embedded.extract_code("```py\nimport os\n```\n", "python")
        assert result.found and result.code == "import os\n" and result.rule == "tagged"
    finally:
        finder.uninstall()
