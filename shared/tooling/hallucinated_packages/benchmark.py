"""hallucinated-packages: invented packages and invented functions in model-written code.

Every version here was frozen while the package folder was `shared/packages/`: its task file embeds its
modules under `packages/`, which `frozen_entry` records (see `ProtocolSpec.path_today`).
"""

from __future__ import annotations

from ..specs import Benchmark, ProtocolSpec, RunOption, ScorerChange

BENCHMARKS = (
    Benchmark(
        name="hallucinated-packages",
        package="hallucinated_packages",
        summary="check the packages and functions code uses against the registries",
        cli_aliases=("packages",),
        commands="hallubench.tooling.hallucinated_packages.commands",
        report="hallubench.tooling.hallucinated_packages.report:rescore_report",
        headline="hallubench.tooling.hallucinated_packages.report:headline",
        page_view="hallubench.tooling.hallucinated_packages.page:page_view",
        scorer_changes=(
            ScorerChange(7, 8, "hallubench.tooling.hallucinated_packages.changes:explain"),
            ScorerChange(7, 9, "hallubench.tooling.hallucinated_packages.changes:explain"),
            ScorerChange(8, 9, "hallubench.tooling.hallucinated_packages.changes:explain"),
        ),
        outages="hallubench.tooling.hallucinated_packages.outages:registry_outages",
        reachability="hallubench.tooling.hallucinated_packages.reachability:run_reachability",
        protocols=(
            ProtocolSpec(
                benchmark="hallucinated-packages",
                version=6,
                entry="hallucinated_packages/task_v6.py",
                frozen_entry="packages/task_v6.py",
                title="hallucinated-packages v6: invented packages and functions in model-written code",
                description=(
                    "14 everyday coding prompts (9 Python, 5 JavaScript), each asked k times. Every "
                    "package the answer imports, installs or requires is checked against the live PyPI "
                    "and npm registries, and every imported function against the published wheel or "
                    "tarball, without installing anything. A lookup that did not return a confirmed 404 "
                    "is unverified, never missing. Reports the hallucinated package and function rates "
                    "with their unverified share and Wilson intervals."
                ),
                cases_factory="hallubench.hallucinated_packages.cases:v6_cases",
                preflight=True,
                comparable=True,
            ),
            ProtocolSpec(
                benchmark="hallucinated-packages",
                version=7,
                entry="hallucinated_packages/task_v7.py",
                frozen_entry="packages/task_v7.py",
                title=(
                    "hallucinated-packages v7: niche libraries, planted packages, no-library tasks and removed APIs"
                ),
                description=(
                    "17 prompts in four groups, each asked k times: A niche tasks needing third-party "
                    "libraries, B prompts that tell the model to use a planted, non-existent package, C "
                    "tasks with no suitable library, D removed APIs. Packages are checked against the "
                    "live registries and symbols against the published artifacts; planted names are "
                    "matched in every form. A decoy gate and a canary run before any model call and "
                    "abort the run if a decoy was registered or the checker is off. Reports the "
                    "hallucinated package rate, hallucinated function rate and adversarial pass rate."
                ),
                cases_factory="hallubench.hallucinated_packages.cases:v7_cases",
                preflight=True,
                comparable=True,
            ),
            ProtocolSpec(
                benchmark="hallucinated-packages",
                version=8,
                entry="hallucinated_packages/task_v8.py",
                frozen_entry="packages/task_v8.py",
                title="hallucinated-packages v8: v7's prompts, a symbol gate that decides the packages users use",
                description=(
                    "The 17 prompts and cases of v7 (groups A-D, each asked k times, decoy gate and canary "
                    "first), byte for byte, so every hosted v7 run can be scored again with v8. The symbol gate "
                    "reads stubs written in newer Python syntax, names a package binds at run time but declares "
                    "(stubs, __all__, __dir__), CommonJS/UMD exports with their `export =` typings, and members "
                    "of objects built by calling or constructing an export (`express()`, `new Foo()`), one "
                    "verdict per imported name; a name is missing only when every way it could exist was read."
                ),
                cases_factory="hallubench.hallucinated_packages.cases:v7_cases",
                preflight=True,
                comparable=True,
                run_options=(
                    RunOption("pypi_url", "https://pypi.org", "the PyPI base URL (JSON API /pypi, Simple API /simple)"),
                    RunOption("npm_url", "https://registry.npmjs.org", "the npm registry's base URL"),
                ),
            ),
            ProtocolSpec(
                benchmark="hallucinated-packages",
                version=9,
                entry="hallucinated_packages/task_v9.py",
                title="hallucinated-packages v9: v7's prompts, types followed to the uses a reply makes",
                description=(
                    "The 17 prompts and cases of v7, byte for byte, so every hosted v7 and v8 run can be scored "
                    "again with v9. The symbol gate follows the type of each value a reply uses through "
                    "annotations, the package's return annotations, stub distributions, assignment chains, "
                    "chained calls, with targets and annotated iterables (Python) and .d.ts return types "
                    "(JavaScript); a use whose receiver type is unknown is counted as unverified, and a group D "
                    "case's removed API on such a receiver is reported as a possible removed-API use, never a "
                    "pass; a name an older release had is removed-api with that release; only the registry's own "
                    "answers decide (a confirmed 404 from its own origin)."
                ),
                cases_factory="hallubench.hallucinated_packages.cases:v7_cases",
                preflight=True,
                comparable=True,
                run_options=(
                    RunOption("pypi_url", "https://pypi.org", "the PyPI base URL (JSON API /pypi, Simple API /simple)"),
                    RunOption("npm_url", "https://registry.npmjs.org", "the npm registry's base URL"),
                ),
            ),
        ),
    ),
)
