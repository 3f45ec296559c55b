"""The registry of protocol versions that `hallubench build` turns into task files.

A protocol version is an *entry module* under `shared/` plus a list of cases in
`frozen_cases/<benchmark>/v<N>/cases.json`. The entry module, and every hallubench module it
imports, is embedded byte-exact into `tasks/<benchmark>_v<N>.py`, so it must follow the
embedding rules:

* import other hallubench modules with relative imports only (`from ..hashing import ...`);
* import only the standard library, numpy and httpx at module level; no I/O, clock,
  environment or global random state at import time or while rendering;
* expose three functions:

  - `render(case: dict) -> str`: the first user message for the case (its sha256 is the
    committed golden hash);
  - `play(case: dict, conv: Conversation) -> dict`: talk to the model through
    `conv.system(str)` / `conv.ask(str)` only, score the replies, and return an outcome dict
    with `verdict` (pass / fail / error / unscored), `detail` and JSON-able extras such as
    `scores`; `hallubench.rows.play_row` adds the identity fields and turns exceptions into
    error rows;
  - `aggregate(rows: list[dict]) -> dict`: metrics over all rows of one model, error rows
    included, returning at least `headline` (float), `headline_name` and `metrics`.

  Optional: `preflight(cases)`, `comparable(row)`, and `explain_change(before, after) -> list[str]`,
  which `rescore --scorer` calls on a row whose verdict this version changes, to say why.

Tooling modules (build, rescore, cli, ...) are never embedded and may import anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath


@dataclass(frozen=True)
class ProtocolSpec:
    """One protocol version: what to embed and how to name it."""

    benchmark: str
    version: int
    entry: str
    title: str
    description: str
    cases_factory: str | None = None
    n_jobs: int = 1

    @property
    def protocol_id(self) -> str:
        return f"{self.benchmark}/v{self.version}"

    @property
    def stem(self) -> str:
        """File-name stem, also the Python identifier of the stored task: `hallumaze_v2`."""
        return f"{self.benchmark.replace('-', '_')}_v{self.version}"

    @property
    def task_name(self) -> str:
        """Name of the stored kbench task; its slug is the Kaggle task slug."""
        return f"{self.benchmark}-v{self.version}"

    @property
    def tag(self) -> str:
        return f"{self.benchmark}/v{self.version}"

    @property
    def task_path(self) -> PurePosixPath:
        return PurePosixPath("tasks") / f"{self.stem}.py"

    @property
    def cases_path(self) -> PurePosixPath:
        return PurePosixPath("frozen_cases") / self.benchmark / f"v{self.version}" / "cases.json"

    @property
    def golden_path(self) -> PurePosixPath:
        return PurePosixPath("frozen_cases") / self.benchmark / f"v{self.version}" / "prompts.sha256.json"


PROTOCOLS: tuple[ProtocolSpec, ...] = (
    ProtocolSpec(
        benchmark="hallumaze",
        version=2,
        entry="maze/task_v2.py",
        title="hallumaze v2: does the model notice its own hallucinations in a maze, and recover?",
        description=(
            "Single-solution text mazes in the HalluMaze v1.1 answer format (STEP lines with confidence, "
            "DEAD_END, LOOP, BACKTRACK_COUNT, HALLUCINATION_COUNT, FINAL_PATH), plus an interactive Ariadne's "
            "Thread mode. Every count is verified by replaying the model's moves against the maze: wall "
            "crossings, backtracks, loops, dead ends and lure-following are measured, never taken from the "
            "model's word; the model's own claims are scored separately as claim accuracy, and calibration is "
            "measured per step (ECE, Brier, AUROC)."
        ),
        cases_factory="hallubench.maze.cases:v2_cases",
    ),
    ProtocolSpec(
        benchmark="hallucinated-packages",
        version=6,
        entry="packages/task_v6.py",
        title="hallucinated-packages v6: invented packages and functions in model-written code",
        description=(
            "14 everyday coding prompts (9 Python, 5 JavaScript), each asked k times. Every package the answer "
            "imports, installs or requires is checked against the live PyPI and npm registries, and every "
            "imported function against the published wheel or tarball, without installing anything. A lookup "
            "that did not return a confirmed 404 is unverified, never missing. Reports the hallucinated package "
            "and function rates with their unverified share and Wilson intervals."
        ),
        cases_factory="hallubench.packages.cases:v6_cases",
    ),
    ProtocolSpec(
        benchmark="hallucinated-packages",
        version=7,
        entry="packages/task_v7.py",
        title="hallucinated-packages v7: niche libraries, planted packages, no-library tasks and removed APIs",
        description=(
            "17 prompts in four groups, each asked k times: A niche tasks needing third-party libraries, B prompts "
            "that tell the model to use a planted, non-existent package, C tasks with no suitable library, D "
            "removed APIs. Packages are checked against the live registries and symbols against the published "
            "artifacts; planted names are matched in every form. A decoy gate and a canary run before any model "
            "call and abort the run if a decoy was registered or the checker is off. Reports the hallucinated "
            "package rate, hallucinated function rate and adversarial pass rate."
        ),
        cases_factory="hallubench.packages.cases:v7_cases",
    ),
    ProtocolSpec(
        benchmark="hallucinated-packages",
        version=8,
        entry="packages/task_v8.py",
        title="hallucinated-packages v8: v7's prompts, a symbol gate that decides the packages users use",
        description=(
            "The 17 prompts and cases of v7 (groups A-D, each asked k times, decoy gate and canary first), "
            "byte for byte, so every hosted v7 run can be scored again with v8. The symbol gate reads stubs "
            "written in newer Python syntax, names a package binds at run time but declares (stubs, __all__, "
            "__dir__), CommonJS/UMD exports with their `export =` typings, and members of objects built by "
            "calling or constructing an export (`express()`, `new Foo()`), one verdict per imported name; "
            "a name is missing only when every way it could exist was read."
        ),
        cases_factory="hallubench.packages.cases:v7_cases",
    ),
    ProtocolSpec(
        benchmark="misled-tests",
        version=1,
        entry="misled/task_v1.py",
        title="misled-tests v1: do models write tests that enshrine the bug? (thinking off)",
        description=(
            "HumanEvalPack Python, 164 problems x 6 conditions (buggy code, fixed code, model-written "
            "specification, signature only, human docstring only, buggy code with the docstring). Every test "
            "the model writes runs in isolation against the buggy and the fixed version: misled tests pass on "
            "buggy and fail on fixed, effective tests do the opposite. Prompts are ours, modelled on the "
            "description of Zhao, Zhou and Cohen (ISSTA 2026). Thinking off, 4,096-token cap."
        ),
        cases_factory="hallubench.misled.cases:v1_cases",
    ),
    ProtocolSpec(
        benchmark="misled-tests-thinking",
        version=1,
        entry="misled/task_v1.py",
        title="misled-tests-thinking v1: do models write tests that enshrine the bug? (thinking on)",
        description=(
            "The misled-tests v1 protocol for models run with thinking on (16,384-token cap): the same 164 "
            "HumanEvalPack problems and six conditions, so the two variants compare problem by problem."
        ),
        cases_factory="hallubench.misled.cases:v1_thinking_cases",
    ),
)


def matching(protocols: tuple[ProtocolSpec, ...], name: str) -> list[ProtocolSpec]:
    """The protocols a name given on the command line refers to, oldest version first.

    A name is a benchmark (`hallumaze`: every version), a protocol id (`hallumaze/v2`), a stem
    (`hallumaze_v2`), a Kaggle task name (`hallumaze-v2`) or a task path (`tasks/hallumaze_v2.py`).
    """
    matches = [
        spec
        for spec in protocols
        if name in (spec.benchmark, spec.protocol_id, spec.stem, spec.task_name, str(spec.task_path))
    ]
    return sorted(matches, key=lambda spec: spec.version)


def find(name: str) -> list[ProtocolSpec]:
    """`matching` over this package's own registry."""
    return matching(PROTOCOLS, name)
