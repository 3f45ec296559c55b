"""misled-tests v2: v1's cases and prompts, byte for byte, scored by the v2 executor.

Superseded by v3 (`task_v3.py`): this module and the executor it names in `shared/` are today's
code, not v2's. The frozen task files tasks/misled_tests_v2.py and tasks/misled_tests_thinking_v2.py
embed v2's own copies, which are what `rescore --task misled-tests/v2` runs (in the jail).

Why a new version: v1's executor let a test see which version it ran on (the working directory
was named after it, the other version's file was readable), let state cross from one version to
the next, had a guard with an off switch in `__main__`, and accepted result lines a test could
write or find. v2 runs the same conversation (`render` and the two-turn model_spec exchange are
v1's, so `hallubench rescore RUNS --task misled-tests/v1 --scorer misled-tests/v2` rescores every
v1 run) and classifies the extracted tests in `executor/` (see `executor/server.py`), which
records in each row the containment layers that were active where it ran.

Data: unlike v1, whose `render` reads HumanEvalPack itself, v2 declares `prepare`: it loads the
data once (${HALLUBENCH_HUMANEVALPACK}, else the pinned download), verifies each case's problem
against the hash the case pins, and adds the problem's fields to the case under `humanevalpack`;
`render` and `play` then do no I/O of their own (they check the fields against the pinned hash
again, which costs no I/O). The prompts stay v1's byte for byte.

Row verdict (as in v1): pass = the reply gave runnable tests with at least one effective and no
misled test; fail = any other model outcome; error = a harness failure (data, pytest, sandbox),
never counted as a model failure. `comparable` leaves out what depends on the machine or on
chance rather than on the reply: the containment layers, the pytest version, the random order of
the versions, and free-text details (they name temporary paths).
"""

from __future__ import annotations

from typing import Any

from ..conversation import Conversation
from ..hashing import sha256_text
from .conditions import MODEL_SPEC, shown_code, with_model_docstring
from .data import FIELDS, DataError, Problem, cached_problems, problem_sha256, verified_problem
from .executor.host import SandboxError
from .extract_tests import extract_tests, spec_from_reply
from .metrics import aggregate_rows
from .prompts import spec_request, spec_test_request, test_request
from .pytest_setup import PytestUnavailable, ensure_pytest
from .verdicts import HARNESS_ERROR, classify_file

PROTOCOL_NOTE = "prompts are ours, modelled on the paper's description (Zhao, Zhou, Cohen, ISSTA 2026)"
EXECUTOR = "misled-tests/v2 executor"
_VOLATILE_ROW_KEYS = ("isolation", "pytest_version", "detail")
_VOLATILE_FILE_KEYS = ("version_order", "notes", "detail")
_VOLATILE_TEST_KEYS = ("buggy_detail", "fixed_detail")
PREPARED = "humanevalpack"  # the case key `prepare` adds: the problem's used fields


def prepare(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The frozen cases, each with its HumanEvalPack problem's fields, verified against the pinned hash."""
    problems = cached_problems()
    prepared = []
    for case in cases:
        problem = verified_problem(problems, str(case["problem"]), str(case["problem_sha256"]))
        prepared.append({**case, PREPARED: problem.fields()})
    return prepared


def _problem(case: dict[str, Any]) -> Problem:
    """The problem of a prepared case (no I/O): its fields, checked again against the hash the case pins."""
    fields = case.get(PREPARED)
    if not isinstance(fields, dict) or any(not isinstance(fields.get(name), str) for name in FIELDS):
        raise DataError(f"case {case.get('id')} was not prepared: it has no HumanEvalPack fields")
    if problem_sha256(fields) != case["problem_sha256"]:
        raise DataError(f"case {case.get('id')}: its HumanEvalPack fields do not match the pinned hash")
    return Problem(**{name: fields[name] for name in FIELDS})


def render(case: dict[str, Any]) -> str:
    """The first user message: the test request, or for model_spec the stage-1 spec request (as in v1)."""
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
        "executor": EXECUTOR,
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
        classified = classify_file(problem, extracted.code, keep_warm=True)
    except (PytestUnavailable, SandboxError) as exc:
        return {**result, "verdict": "error", "error_kind": "sandbox", "detail": str(exc)}
    result["isolation"] = classified.isolation
    result["classification"] = classified.as_dict()
    if classified.status == HARNESS_ERROR:
        return {**result, "verdict": "error", "error_kind": "sandbox", "detail": classified.detail[:1500]}
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


def comparable(row: dict[str, Any]) -> dict[str, Any]:
    """The part of a row that must agree between a hosted run and a rescore (see the module docstring)."""
    kept = {key: value for key, value in row.items() if key not in _VOLATILE_ROW_KEYS}
    classification = kept.get("classification")
    if isinstance(classification, dict):
        classification = {key: value for key, value in classification.items() if key not in _VOLATILE_FILE_KEYS}
        tests = classification.get("tests")
        if isinstance(tests, list):
            classification["tests"] = [
                {key: value for key, value in test.items() if key not in _VOLATILE_TEST_KEYS}
                if isinstance(test, dict)
                else test
                for test in tests
            ]
        kept["classification"] = classification
    return kept


def aggregate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-condition rates and the four primary paired comparisons (see metrics.py), as in v1."""
    return aggregate_rows(rows)
