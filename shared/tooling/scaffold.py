"""`hallubench new NAME`: the files of a new benchmark, a trivial but real protocol that builds, runs and rescores.

The protocol asks for the sum of two numbers and passes a reply whose first number is that sum:
small enough to read in a minute, complete enough to show every part an author fills in (cases
from a seeded factory, a pure renderer, `play` through the conversation only, an `aggregate`
that keeps error rows in its denominators, the declaration that registers it, its own tests).
Nothing is written if any target exists; the name must be new to the registry and the CLI.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..errors import HallubenchError
from .specs import DECLARATION, Registry

NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


class ScaffoldError(HallubenchError):
    """The name is unusable or taken; nothing was written."""


@dataclass(frozen=True)
class Scaffold:
    name: str  # the benchmark's one name: protocol ids, task files, the command group
    package: str  # its folders' name: the name with hyphens turned into underscores

    @property
    def folders(self) -> tuple[PurePosixPath, ...]:
        """The benchmark's own folders, and nothing else: everything `new` writes is inside them."""
        shared = PurePosixPath("shared")
        return (shared / self.package, shared / "tooling" / self.package, PurePosixPath("tests") / self.package)

    @property
    def files(self) -> dict[PurePosixPath, str]:
        """Every file `new` writes, by path from the repository root."""
        code, tooling, tests = self.folders
        return {
            code / "__init__.py": f'"""{self.name}: its embeddable modules (see README.md here)."""\n',
            code / "cases.py": _CASES,
            code / "task_v1.py": _ENTRY.format(name=self.name),
            code / "README.md": _README.format(name=self.name, package=self.package),
            tooling / "__init__.py": f'"""{self.name}: its tooling (never embedded); `benchmark.py` declares it."""\n',
            tooling / DECLARATION: _DECLARATION.format(name=self.name, package=self.package),
            tests / f"test_{self.package}_v1.py": _TESTS.format(package=self.package),
        }


def plan(name: str, registry: Registry, taken_commands: set[str], root: Path) -> Scaffold:
    """The scaffold for `name`, or ScaffoldError saying why the name cannot be used."""
    if not NAME.fullmatch(name):
        raise ScaffoldError(f"{name!r}: a benchmark name is lower-case words joined by hyphens, e.g. 'demo-bench'")
    scaffold = Scaffold(name, name.replace("-", "_"))
    if registry.benchmark(name) is not None or name in taken_commands:
        raise ScaffoldError(f"{name!r} is already a benchmark or a command")
    if any(scaffold.package == b.package for b in registry.benchmarks):
        raise ScaffoldError(f"shared/{scaffold.package}/ already belongs to another benchmark")
    # A folder or a module of that name (shared/stats.py, shared/tooling/jail/) would be shadowed or mixed into.
    taken = [shown for path in scaffold.folders for shown in (f"{path}/", f"{path}.py") if (root / shown).exists()]
    if taken:
        raise ScaffoldError(f"refusing to overwrite: {', '.join(taken)} already exists")
    return scaffold


def write(scaffold: Scaffold, root: Path) -> list[PurePosixPath]:
    written = []
    for path, text in scaffold.files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        written.append(path)
    return written


_CASES = '''"""The cases of version 1: pairs of numbers to add, drawn from a seeded generator (never the global one).

`hallubench build` calls `v1_cases()` and freezes what it returns into frozen_cases/: this module
is embedded too, so it follows the embedding rules (standard library only, no clock, no I/O).
"""

from __future__ import annotations

import random

from ..contract import Case


def v1_cases(count: int = 6, seed: int = 0) -> list[Case]:
    rng = random.Random(seed)
    return [{"id": f"add-{index:03d}", "a": rng.randint(10, 99), "b": rng.randint(10, 99)} for index in range(count)]
'''

_ENTRY = '''"""{name} v1: the entry module embedded into its task file: render, play, aggregate.

The protocol: ask for the sum of two numbers; a reply passes when the first number in it is the
sum, fails when it is another number, and is unscored when it holds no number at all. Replace it
with your own; keep the shape (see `hallubench.contract` and `hallubench.tooling.specs`).
"""

from __future__ import annotations

import re

from ..contract import Aggregate, Case, PlayOutcome, Row
from ..conversation import Conversation

NUMBER = re.compile(r"-?\\d+")


def render(case: Case) -> str:
    """The first (here the only) message: a pure function of the case."""
    return f"What is {{case['a']}} + {{case['b']}}? Reply with the number only."


def play(case: Case, conv: Conversation) -> PlayOutcome:
    """Talk to the model only through `conv`, then score the reply; exceptions become error rows."""
    reply = conv.ask(render(case))
    expected = int(case["a"]) + int(case["b"])
    found = NUMBER.search(reply)
    if found is None:
        return {{"verdict": "unscored", "detail": "the reply holds no number", "scores": {{"correct": None}}}}
    correct = int(found.group()) == expected
    detail = f"answered {{found.group()}}, expected {{expected}}"
    return {{"verdict": "pass" if correct else "fail", "detail": detail, "scores": {{"correct": int(correct)}}}}


def aggregate(rows: list[Row]) -> Aggregate:
    """Accuracy over the scored rows; error and unscored rows stay in the counts beside it."""
    scored = [row for row in rows if row.get("verdict") in ("pass", "fail")]
    passed = sum(1 for row in scored if row["verdict"] == "pass")
    counts = {{verdict: sum(1 for row in rows if row.get("verdict") == verdict) for verdict in ("error", "unscored")}}
    return {{
        "headline": passed / len(scored) if scored else None,
        "headline_name": "accuracy",
        "metrics": {{"rows": len(rows), "scored": len(scored), "passed": passed, **counts}},
    }}
'''

_DECLARATION = '''"""{name}: declared here, which registers it (build, run, rescore and the contract tests find it)."""

from __future__ import annotations

from ..specs import Benchmark, ProtocolSpec

BENCHMARKS = (
    Benchmark(
        name="{name}",
        package="{package}",
        summary="sums of two numbers (a scaffold: replace it with your protocol)",
        protocols=(
            ProtocolSpec(
                benchmark="{name}",
                version=1,
                entry="{package}/task_v1.py",
                title="{name} v1",
                description="Asks for the sum of two numbers; a reply passes when its first number is the sum.",
                cases_factory="hallubench.{package}.cases:v1_cases",
            ),
        ),
    ),
)
'''

_README = """# {name}

Written by `hallubench new {name}`: a trivial but real protocol (sums of two numbers) to replace with yours.

| file | what it is | embedded into the task file? |
|---|---|---|
| `shared/{package}/task_v1.py` | the entry module: `render`, `play`, `aggregate` | yes |
| `shared/{package}/cases.py` | `v1_cases()`, frozen into `frozen_cases/{name}/v1/cases.json` by `build` | yes |
| `shared/tooling/{package}/benchmark.py` | the declaration: name, package, versions, hooks | no (tooling) |
| `tests/{package}/test_{package}_v1.py` | the protocol's own tests | no |

Everything of this benchmark lives in `shared/{package}/`, `shared/tooling/{package}/` (its declaration
and whatever tooling it declares as hooks: commands, report, page view, change explanations) and
`tests/{package}/` (with `services.py` when its runs need services such as a loopback registry).

Next:

```bash
hallubench build {name}              # tasks/{package}_v1.py, cases and golden prompt hashes
hallubench run {name} --limit 2      # on the embedded model; prints the output folder
hallubench rescore <that folder>     # every prompt verified, every score recomputed
pytest tests/{package} tests/test_protocol_contract.py -k "{package} or {name}"
hallubench freeze {name}             # when final: lock the bytes; a change then needs version 2
```
"""

_TESTS = '''"""The protocol's own behaviour; tests/test_protocol_contract.py covers the rest, for every benchmark."""

from __future__ import annotations

from hallubench.{package} import task_v1
from hallubench.{package}.cases import v1_cases
from hallubench.rows import error_row, play_row
from hallubench.tooling.testing import ScriptedConversation

CASE = v1_cases()[0]
SUM = str(CASE["a"] + CASE["b"])


def _row(reply: str) -> dict[str, object]:
    return play_row(task_v1.play, CASE, ScriptedConversation.of(reply), protocol_id="p", payload_sha256="s")


def test_the_sum_passes_another_number_fails_and_no_number_is_unscored() -> None:
    assert _row(f"It is {{SUM}}.")["verdict"] == "pass"
    assert _row("It is 1.")["verdict"] == "fail"
    assert _row("I cannot say.")["verdict"] == "unscored"


def test_the_accuracy_keeps_error_rows_beside_it() -> None:
    rows = [_row(SUM), _row("0"), error_row("p", "s", "add-009", "model_call", "down")]
    summary = task_v1.aggregate(rows)  # type: ignore[arg-type]
    assert summary["headline"] == 0.5
    assert summary["metrics"]["rows"] == 3 and summary["metrics"]["error"] == 1
'''
