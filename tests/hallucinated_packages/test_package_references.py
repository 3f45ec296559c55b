"""Golden model answers (tests/hallucinated_packages/data/answers/*.md) against their expected references."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hallubench.hallucinated_packages.extract_answer import extract_answer
from hallubench.hallucinated_packages.references import Reference

ANSWERS = Path(__file__).resolve().parent / "data" / "answers"
DEFAULTS: dict[str, Any] = {
    "ecosystem": "pypi",
    "subpath": None,
    "symbols": [],
    "instance_symbols": [],
    "optional": False,
    "version": None,
    "partially_parsed": False,
}
FIELDS = (
    "ecosystem",
    "source",
    "text",
    "package",
    "subpath",
    "classification",
    "symbols",
    "instance_symbols",
    "optional",
    "version",
    "partially_parsed",
)


def _project(reference: Reference) -> str:
    data = reference.to_dict()
    return json.dumps({key: data[key] for key in FIELDS}, sort_keys=True)


def _expected(item: dict[str, Any]) -> str:
    full = {**DEFAULTS, **item}
    return json.dumps({key: full[key] for key in FIELDS}, sort_keys=True)


CASES = sorted(ANSWERS.glob("*.md"))


@pytest.mark.parametrize("answer", CASES, ids=[p.stem for p in CASES])
def test_answer_references_match_golden(answer: Path) -> None:
    expected = json.loads(answer.with_suffix(".expected.json").read_text())
    result = extract_answer(answer.read_text())
    got = sorted(_project(r) for r in result.references)
    want = sorted(_expected(item) for item in expected["references"])
    assert got == want, "\n".join(sorted(set(got) ^ set(want)))
    assert result.partially_parsed == expected["partially_parsed"]


def test_every_golden_answer_has_expectations() -> None:
    assert CASES, "no golden answers found"
    for answer in CASES:
        assert answer.with_suffix(".expected.json").exists(), answer.name
