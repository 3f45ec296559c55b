"""The six prompt conditions: what code (if any) the model sees before it is asked for tests.

HumanEvalPack gives, per problem, `prompt` (imports, helpers, signature and the human
docstring), `declaration` (the same without the docstring), and the fixed (canonical) and
buggy bodies. The conditions combine them; the tests always run against `prompt + body`.
Embedded into task files: standard library only.
"""

from __future__ import annotations

from .data import Problem

BUGGY_CODE = "buggy_code"
FIXED_CODE = "fixed_code"
MODEL_SPEC = "model_spec"
SIGNATURE_ONLY = "signature_only"
HUMAN_DOCSTRING = "human_docstring"
BUGGY_WITH_DOCSTRING = "buggy_with_docstring"

CONDITIONS: tuple[str, ...] = (
    BUGGY_CODE,
    FIXED_CODE,
    MODEL_SPEC,
    SIGNATURE_ONLY,
    HUMAN_DOCSTRING,
    BUGGY_WITH_DOCSTRING,
)
DESCRIPTIONS: dict[str, str] = {
    BUGGY_CODE: "signature and buggy body, docstring removed",
    FIXED_CODE: "signature and fixed body, docstring removed",
    MODEL_SPEC: "stage 1: a docstring written by the model from the buggy code; stage 2: tests from it",
    SIGNATURE_ONLY: "signature only (no docstring, no body)",
    HUMAN_DOCSTRING: "signature and the human docstring, no body",
    BUGGY_WITH_DOCSTRING: "signature, human docstring and buggy body",
}
STUB_BODY = "    ...\n"


def _join(header: str, body: str) -> str:
    return (header if header.endswith("\n") else header + "\n") + body


def shown_code(problem: Problem, condition: str) -> str:
    """The code block shown with the test request (for model_spec: the stage-1 code)."""
    if condition in (BUGGY_CODE, MODEL_SPEC):
        return _join(problem.declaration, problem.buggy_solution).strip("\n") + "\n"
    if condition == FIXED_CODE:
        return _join(problem.declaration, problem.canonical_solution).strip("\n") + "\n"
    if condition == SIGNATURE_ONLY:
        return _join(problem.declaration, STUB_BODY).strip("\n") + "\n"
    if condition == HUMAN_DOCSTRING:
        return _join(problem.prompt, STUB_BODY).strip("\n") + "\n"
    if condition == BUGGY_WITH_DOCSTRING:
        return _join(problem.prompt, problem.buggy_solution).strip("\n") + "\n"
    raise ValueError(f"unknown condition {condition!r}; expected one of {CONDITIONS}")


def with_model_docstring(problem: Problem, docstring: str) -> str:
    """Stage 2 of model_spec: the declaration with the model's docstring and no body."""
    text = docstring.strip("\n").replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = text.splitlines() or [""]
    indented = "\n".join(("    " + line) if line.strip() else "" for line in lines)
    return _join(problem.declaration, f'    """\n{indented}\n    """\n{STUB_BODY}').strip("\n") + "\n"


def solution_file(problem: Problem, version: str) -> str:
    """The program the tests import as `solution`: the full HumanEval prompt plus one body."""
    body = {"buggy": problem.buggy_solution, "fixed": problem.canonical_solution}[version]
    return _join(problem.prompt, body)
