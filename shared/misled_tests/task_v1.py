"""misled-tests v1: the entry module (render, play, aggregate) embedded into the task files.

A case is one (problem, condition, thinking variant):
`{"id": "p030-buggy_code-think_off", "problem": "Python/30", "condition": "buggy_code",
"thinking": "off", "problem_sha256": "..."}`. The problem text is not in the case (the data
is not committed): `render` and `play` read the pinned HumanEvalPack through `data.py` and
refuse a problem whose fields do not hash to `problem_sha256`. That read is the one I/O
`render` does, and its result is fixed by the hash, so renders stay a function of the case.

`play` asks for tests (for model_spec: first a docstring written from the buggy code, then
tests from that docstring and the signature, as two turns of the one conversation the task
API gives a case; the stage-1 spec is kept in the row), extracts the test file, runs every
collected item on the buggy and the fixed program in the sandbox, and classifies each item.
Row verdict: pass = the reply gave runnable tests with at least one effective and no misled
test; fail = any other model outcome (misled tests, no bug caught, unusable reply); error =
a harness failure (data, pytest, sandbox), never counted as a model failure.
"""

from __future__ import annotations

from typing import Any

from ..conversation import Conversation
from ..hashing import sha256_text
from .classify import classify_file
from .conditions import MODEL_SPEC, shown_code, with_model_docstring
from .data import DataError, Problem, cached_problems, verified_problem
from .extract_tests import extract_tests, spec_from_reply
from .metrics import aggregate_rows
from .prompts import spec_request, spec_test_request, test_request
from .pytest_setup import PytestUnavailable, ensure_pytest
from .sandbox import SandboxError, isolation_description

PROTOCOL_NOTE = "prompts are ours, modelled on the paper's description (Zhao, Zhou, Cohen, ISSTA 2026)"


def _problem(case: dict[str, Any]) -> Problem:
    return verified_problem(cached_problems(), str(case["problem"]), str(case["problem_sha256"]))


def render(case: dict[str, Any]) -> str:
    """The first user message: the test request, or for model_spec the stage-1 spec request."""
    problem = _problem(case)
    code = shown_code(problem, str(case["condition"]))
    if case["condition"] == MODEL_SPEC:
        return spec_request(problem.entry_point, code)
    return test_request(problem.entry_point, code)


def _ask_for_tests(case: dict[str, Any], problem: Problem, conv: Conversation, result: dict[str, Any]) -> str:
    first = conv.ask(render(case))
    if case["condition"] != MODEL_SPEC:
        return first
    spec = spec_from_reply(first, problem.entry_point)
    stage1 = extract_tests(first, str(case["thinking"]))
    result["spec"] = spec
    result["spec_reply_chars"] = len(first)
    result["spec_near_cap"] = stage1.near_cap
    return conv.ask(spec_test_request(problem.entry_point, with_model_docstring(problem, spec)))


def play(case: dict[str, Any], conv: Conversation) -> dict[str, Any]:
    result: dict[str, Any] = {
        "problem": case["problem"],
        "condition": case["condition"],
        "thinking": case["thinking"],
        "note": PROTOCOL_NOTE,
    }
    try:
        problem = _problem(case)
    except DataError as exc:
        return {**result, "verdict": "error", "error_kind": "data", "detail": str(exc)}
    reply = _ask_for_tests(case, problem, conv, result)
    extracted = extract_tests(reply, str(case["thinking"]))
    extraction = extracted.as_dict()
    extraction.pop("code")
    extraction["code_sha256"] = sha256_text(extracted.code)
    result["extraction"] = extraction
    if not extracted.usable:
        scores = {"usable": False, "unusable_reason": extracted.status, "n_tests": 0}
        return {**result, "verdict": "fail", "detail": f"unusable reply: {extracted.status}", "scores": scores}
    try:
        result["pytest_version"] = ensure_pytest()
        result["isolation"] = isolation_description()
        classified = classify_file(problem, extracted.code)
    except (PytestUnavailable, SandboxError) as exc:
        return {**result, "verdict": "error", "error_kind": "sandbox", "detail": str(exc)}
    result["classification"] = classified.as_dict()
    counts = classified.counts
    usable = classified.status == "ok"
    scores = {
        "usable": usable,
        "unusable_reason": None if usable else classified.status,
        "n_tests": len(classified.tests),
        **counts,
    }
    passed = usable and counts["effective"] > 0 and counts["misled"] == 0
    detail = (
        f"{len(classified.tests)} tests: " + ", ".join(f"{count} {name}" for name, count in counts.items())
        if usable
        else f"unusable test file: {classified.status}: {classified.detail[:300]}"
    )
    return {**result, "verdict": "pass" if passed else "fail", "detail": detail, "scores": scores}


def aggregate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-condition rates and the four primary paired comparisons (see metrics.py)."""
    return aggregate_rows(rows)
