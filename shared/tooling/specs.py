"""The registry of benchmarks and their protocol versions: every name and every hook, declared in one place.

A **benchmark** has one name (`hallumaze`), from which its protocol ids (`hallumaze/v2`), task
files (`tasks/hallumaze_v2.py`), Kaggle task names (`hallumaze-v2`) and its command group
(`hallubench hallumaze ...`) derive. Its `package` is the name with hyphens turned into underscores
(`hallumaze`, `hallucinated_packages`), and a benchmark is its folders: `shared/<package>/` (its
embeddable modules), `shared/tooling/<package>/` (its tooling: declaration, commands, reports, page
view, change explanations; never embedded) and `tests/<package>/`. `cli_aliases` keep the short
command names users know (`maze`).

Discovery is explicit and by one file name: a benchmark is declared by
`shared/tooling/<package>/benchmark.py`, whose `BENCHMARKS` tuple registers it (`hallubench new
NAME` writes one). Nothing else in `shared/tooling/` is searched, and a declaration imports nothing
but this module (`from ..specs import ...`), so a checkout's registry loads without its tooling.

A **protocol version** is an entry module in the benchmark's package plus its cases. The entry
module, and every module it imports, is embedded byte-exact into the task file, so it follows the
embedding rules (checked by `build`): relative imports of hallubench modules only, never a module
of `tooling/`; only the standard library, numpy and httpx at module level; no I/O, clock,
environment or global random state at import time or while rendering. Its functions, typed in
`hallubench.contract`:

- `render(case) -> str`: the first user message (its sha256 is the committed golden hash);
- `play(case, conv) -> PlayOutcome` (or `play(case, conv, options)` when the version declares run
  options): talk to the model only through `conv.system(str)` / `conv.ask(str)`, score, return the
  outcome; `hallubench.rows.play_row` adds the identity fields and turns exceptions into error rows;
- `aggregate(rows) -> Aggregate`: metrics over all rows of one model, error rows included.

The hooks a version or benchmark may provide, each with its default; nothing is found by
`getattr`, and a declared hook that is missing or fails to import is an error:

- `preflight` (version, default off): the entry defines `preflight(cases) -> dict` (`preflight(cases,
  options)` when the version declares run options), run once in the task file before any model call;
  it may raise to abort the run (a planted decoy was registered).
- `comparable` (version, default off): the entry defines `comparable(row)`, the projection of a row
  that `rescore` compares with the hosted one (e.g. without registry timestamps); off: whole rows.
- `prepare` (version, default off): the entry defines `prepare(cases) -> cases`, the one place a protocol
  may do I/O before rendering: it adds to each frozen case the external data the case refers to (data
  that may not be embedded, like HumanEvalPack), verified against the hashes the case pins. The task
  file, `build` and `rescore` call it once; `render` and `play` then see prepared cases only.
- `run_options` (version, default none): settings a local run may change (`hallubench run --option
  NAME=VALUE`), passed to `play` as its third argument and written into every row.
- `n_jobs` (version, default 1): rows kaggle-benchmarks plays at once.
- `frozen_entry` (version, default none): not a hook but a fact about a frozen task file: the path it embeds
  the entry under when the package folder was renamed after the freeze (`maze/task_v3.py` while `entry`
  is `hallumaze/task_v3.py`). `build --check`, `hallubench modules` and the contract suite map the frozen
  file's module paths to today's through it (`path_today`); a version still to be built has none.
- `executes_model_code` (version, default off): `play` runs code the model wrote (misled-tests runs its
  tests). The tooling then never calls that `play` on the host: `rescore`, `--scorer` and the
  benchmark's own commands run it in the kernel-enforced jail (`tooling/jail/`), and every row
  records the jail's layers. `executor_namespaces`: its executor makes fresh namespaces per program
  version itself, so the jail lets it (and the executor refuses them to the code under test).
- `machine_dependent` (version, default none): top-level row keys that describe the machine a row ran
  on, not its score, left out when `rescore` compares rows; for frozen versions whose entry has no
  `comparable` (misled-tests v1 records its isolation layers, which the jail changes).
- `data_help` (benchmark, default none): one sentence saying how a user provides the data its versions'
  `prepare` loads (printed by `run` and `rescore` when it cannot be loaded).
- `jail_inputs` (benchmark, default none): `"module:function"` of the tooling that returns, for a
  list of cases, the files (environment variable -> bytes) a frozen executor reads inside the jail;
  they are handed in as memory files, since nothing on the host is readable there.
- `outages` (benchmark, default none): `"module:function"` of the tooling that returns, for a re-scored
  row, the services it needed that gave no answer (`["https://pypi.org: no response: ..."]`); `rescore`
  then reports the row as UNREACHABLE (a network outage where it runs), not as a score that disagrees.
- `reachability` (benchmark, default none): `"module:function"` of the tooling that returns, for a run's
  options, the services it needs that give no answer here; `run` stops (exit 2, "registries unreachable")
  before the task file starts, rather than let an outage read as a failed control.
- `headline` (benchmark, default none): `"module:function"` of the tooling that turns one model's verified
  rows into its `Headline` (`hallubench.tooling.headline`): the metric, its direction, and per unit its
  (numerator, denominator) and cluster. The leaderboard, `hallubench plan` and the drift check read it.
- `report` (benchmark, default none): `"module:function"` of the tooling that turns verified rows
  into the benchmark's own tables for `rescore` (`function(rows_by_model, **options) -> dict`).
- `commands` (benchmark, default none): the tooling module whose `register(subparsers, name, aliases)`
  adds `hallubench <name> ...`.
- `page_view` (benchmark, default none): `"module:function"` of the tooling that adds the benchmark's
  part to the HTML report (`function(result, rows) -> PageView`, `hallubench.tooling.report_html.view`:
  its own leaderboard or extra columns, what follows it, its metric names explained, and the script
  that draws a row's evidence). Without it the page is the generic one; `report_html/` knows no
  benchmark.
- `scorer_changes` (benchmark, default none): per version pair, why a newer version's scorer moves an
  older version's hosted rows (`rescore --task NAME/vOLD --scorer NAME/vNEW`): a `ScorerChange(old,
  new, "module:function")` whose `function(hosted_row, rescored_row) -> dict | None` says what changed
  and why (`verdict`: [hosted, rescored], `reasons`: lines, optionally `reason_ids`), None when nothing
  did. A pair without one is explained field by field (`hallubench.tooling.rescore.scorer_changes`).

Everything a benchmark declares as a hook lives in its own folders, so a benchmark with the parity of
the existing ones (commands, report, page view, change explanations, test services) changes no file
outside `shared/<package>/`, `shared/tooling/<package>/` and `tests/<package>/`.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ..errors import HallubenchError

DECLARATION = "benchmark.py"  # shared/tooling/<package>/benchmark.py declares a benchmark (see the docstring)


@dataclass(frozen=True)
class RunOption:
    """A setting a local run may change; hosted runs use the default. Recorded in every row it reaches."""

    name: str
    default: str
    help: str


@dataclass(frozen=True)
class ProtocolSpec:
    """One protocol version: what to embed, how to name it, and the hooks its entry module provides."""

    benchmark: str
    version: int
    entry: str
    title: str
    description: str
    cases_factory: str | None = None
    frozen_entry: str | None = None  # the entry's path inside the frozen task file, where the folder was renamed since
    n_jobs: int = 1
    preflight: bool = False
    comparable: bool = False
    prepare: bool = False
    run_options: tuple[RunOption, ...] = ()
    executes_model_code: bool = False
    executor_namespaces: bool = False
    machine_dependent: tuple[str, ...] = ()

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

    def option_defaults(self) -> dict[str, str]:
        return {option.name: option.default for option in self.run_options}

    @property
    def embedded_entry(self) -> str:
        """The entry's path as the task file embeds it (`maze/task_v3.py` for a version frozen before the rename)."""
        return self.frozen_entry or self.entry

    def path_today(self, embedded: str) -> str:
        """The path under `shared/` today of a module the task file embeds as `embedded`.

        A version frozen before its package folder was renamed embeds its modules under the old
        folder (`maze/score.py`); its `frozen_entry` names that folder, and they map to the new one
        (`hallumaze/score.py`). Every other path is the same in both.
        """
        if self.frozen_entry is None:
            return embedded
        old, new = self.frozen_entry.split("/", 1)[0], self.entry.split("/", 1)[0]
        return new + embedded[len(old) :] if embedded.startswith(f"{old}/") else embedded


@dataclass(frozen=True)
class ScorerChange:
    """Why version `new`'s scorer moves rows hosted under version `old`: `explain` is "module:function"."""

    old: int
    new: int
    explain: str


@dataclass(frozen=True)
class Benchmark:
    """A benchmark: its one name, the folder of its embeddable modules, its tooling hooks, its versions."""

    name: str
    package: str
    summary: str
    protocols: tuple[ProtocolSpec, ...]
    cli_aliases: tuple[str, ...] = ()
    commands: str | None = None
    report: str | None = None
    jail_inputs: str | None = None
    data_help: str | None = None  # how to provide the data `prepare` loads, said when it cannot be loaded
    outages: str | None = None  # services a re-scored row needed that gave no answer (see the module docstring)
    reachability: str | None = None  # services a run needs that give no answer here, checked before it starts
    headline: str | None = None  # one model's rows -> its Headline (leaderboard, plan, drift)
    page_view: str | None = None  # its part of the HTML report (see the module docstring)
    scorer_changes: tuple[ScorerChange, ...] = ()  # why a newer version's scorer moves an older one's rows

    def scorer_change(self, old: int, new: int) -> str | None:
        """The hook that explains rows of version `old` re-scored by version `new`, None when the pair has none."""
        return next((c.explain for c in self.scorer_changes if (c.old, c.new) == (old, new)), None)


class HookError(HallubenchError):
    """A declared hook that is missing or does not import: named, never skipped."""


def load_hook(reference: str, what: str) -> Any:
    """The object `"package.module:attribute"` names; raises HookError naming the hook and the cause."""
    module_name, _, attribute = reference.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        raise HookError(f"{what} {reference!r} failed to import: {type(exc).__name__}: {exc}") from exc
    if not attribute:
        return module
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise HookError(f"{what} {reference!r}: {module_name} has no {attribute!r}") from None


@dataclass(frozen=True)
class Registry:
    """Every declared benchmark, in name order."""

    benchmarks: tuple[Benchmark, ...]

    @property
    def protocols(self) -> tuple[ProtocolSpec, ...]:
        return tuple(spec for benchmark in self.benchmarks for spec in benchmark.protocols)

    def benchmark(self, name: str) -> Benchmark | None:
        """The benchmark called `name` or, for a command line, one of its aliases."""
        return next((b for b in self.benchmarks if name == b.name or name in b.cli_aliases), None)

    def benchmark_of(self, protocol_id: str) -> Benchmark | None:
        return next((b for b in self.benchmarks for s in b.protocols if s.protocol_id == protocol_id), None)

    def spec(self, protocol_id: str) -> ProtocolSpec | None:
        return next((s for s in self.protocols if s.protocol_id == protocol_id), None)


def matching(protocols: Iterable[ProtocolSpec], name: str) -> list[ProtocolSpec]:
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


def declaration_folders(tooling: Path) -> list[str]:
    """The folders of `tooling` (a `shared/tooling/`) that hold a declaration, `<package>/benchmark.py`, sorted."""
    return sorted(path.parent.name for path in tooling.glob(f"*/{DECLARATION}") if path.is_file())


def installed_registry() -> Registry:
    """The benchmarks this installed package declares."""
    declared: list[Benchmark] = []
    for folder in declaration_folders(Path(__file__).resolve().parent):
        module = importlib.import_module(f"{__package__}.{folder}.{DECLARATION.removesuffix('.py')}")
        declared.extend(module.BENCHMARKS)
    return Registry(tuple(sorted(declared, key=lambda b: b.name)))


def load_registry(root: Path) -> Registry:
    """The benchmarks declared in the checkout at `root`, loaded in isolation from the installed package.

    `build`, `freeze` and the task lookup work on a checkout (a scratch copy in tests, a newer
    checkout than the one installed), so they read its declarations, not the installed ones.
    """
    from ..embedding import EmbeddedModules

    shared = root / "shared"
    tooling = shared / "tooling"
    sources = {
        "errors.py": (shared / "errors.py").read_text(encoding="utf-8"),  # what specs.py imports
        "tooling/specs.py": (tooling / "specs.py").read_text(encoding="utf-8"),
    }
    folders = declaration_folders(tooling)
    for folder in folders:
        sources[f"tooling/{folder}/__init__.py"] = ""  # the declaration alone: the folder's tooling is not loaded
        sources[f"tooling/{folder}/{DECLARATION}"] = (tooling / folder / DECLARATION).read_text(encoding="utf-8")
    finder = EmbeddedModules(f"_hallubench_registry_{abs(hash(str(root)))}", sources)
    module = DECLARATION.removesuffix(".py")
    try:
        declared = [_adopt(b) for folder in folders for b in finder.load(f"tooling.{folder}.{module}").BENCHMARKS]
    finally:
        finder.uninstall()
    return Registry(tuple(sorted(declared, key=lambda b: b.name)))


def _adopt(value: Any) -> Any:
    """A declaration loaded in isolation, rebuilt from this module's own classes (so isinstance holds)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        classes = {cls.__name__: cls for cls in (RunOption, ProtocolSpec, Benchmark, ScorerChange)}
        return classes[type(value).__name__](
            **{f.name: _adopt(getattr(value, f.name)) for f in dataclasses.fields(value)}
        )
    if isinstance(value, tuple):
        return tuple(_adopt(item) for item in value)
    return value


def find(name: str) -> list[ProtocolSpec]:
    """`matching` over this package's own registry."""
    return matching(installed_registry().protocols, name)
