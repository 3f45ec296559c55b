"""misled-tests (thinking off and on): do models write tests that enshrine the bug?

Every version here was frozen while the package folder was `shared/misled/`: its task file embeds its
modules under `misled/`, which `frozen_entry` records (see `ProtocolSpec.path_today`).
"""

from __future__ import annotations

from ..specs import Benchmark, ProtocolSpec

DATA_HELP = (
    "HumanEvalPack is never committed here: set HALLUBENCH_HUMANEVALPACK=path/to/humanevalpack.jsonl, or let the "
    "loader download it once from its pinned source (bigcode-project/octopack at commit 526627ac)"
)

BENCHMARKS = (
    Benchmark(
        name="misled-tests",
        package="misled_tests",
        summary="classify test files against a HumanEvalPack problem, report runs",
        cli_aliases=("misled",),
        commands="hallubench.tooling.misled_tests.commands",
        report="hallubench.tooling.misled_tests.report:rescore_report",
        headline="hallubench.tooling.misled_tests.report:headline",
        page_view="hallubench.tooling.misled_tests.page:page_view",
        jail_inputs="hallubench.tooling.misled_tests.jail_inputs:humanevalpack_rows",
        data_help=DATA_HELP,
        protocols=(
            ProtocolSpec(
                benchmark="misled-tests",
                version=1,
                entry="misled_tests/task_v1.py",
                frozen_entry="misled/task_v1.py",
                title="misled-tests v1: do models write tests that enshrine the bug? (thinking off)",
                description=(
                    "HumanEvalPack Python, 164 problems x 6 conditions (buggy code, fixed code, "
                    "model-written specification, signature only, human docstring only, buggy code with "
                    "the docstring). Every test the model writes runs in isolation against the buggy and "
                    "the fixed version: misled tests pass on buggy and fail on fixed, effective tests do "
                    "the opposite. Prompts are ours, modelled on the description of Zhao, Zhou and Cohen "
                    "(ISSTA 2026). Thinking off, 4,096-token cap."
                ),
                cases_factory="hallubench.misled_tests.cases:v1_cases",
                executes_model_code=True,
                machine_dependent=("isolation",),
            ),
            ProtocolSpec(
                benchmark="misled-tests",
                version=2,
                entry="misled_tests/task_v2.py",
                frozen_entry="misled/task_v2.py",
                title="misled-tests v2: do models write tests that enshrine the bug? (thinking off, new executor)",
                description=(
                    "The misled-tests v1 cases and prompts, byte for byte, with a new executor and scorer: "
                    "each collected test runs on the buggy and the fixed version in the same path with the "
                    "same environment, in a random order, with nothing carried from one version to the next; "
                    "a test passes only when the executor itself finds the evidence that its test function "
                    "returned, which test code can neither write nor forge; an audit guard without an off "
                    "switch refuses every route out, and user, mount, network and PID namespaces with a "
                    "read-only root are added where the kernel allows it (each row records which layers were "
                    "active). Thinking off, 4,096-token cap."
                ),
                cases_factory="hallubench.misled_tests.cases:v1_cases",
                comparable=True,
                prepare=True,
                executes_model_code=True,
            ),
            ProtocolSpec(
                benchmark="misled-tests",
                version=3,
                entry="misled_tests/task_v3.py",
                frozen_entry="misled/task_v3.py",
                title="misled-tests v3: do models write tests that enshrine the bug? (thinking off, kernel-contained)",
                description=(
                    "The misled-tests v1 cases and prompts, byte for byte, with an executor the kernel contains: "
                    "each program version runs in an instance of its own (fresh user, mount, IPC, network, UTS "
                    "and PID namespaces, a new read-only root, a brand-new tmpfs) where the kernel allows it, "
                    "every process that runs test code is under Landlock and a seccomp filter, the harness "
                    "never runs test code, and pytest's own verdict decides each item (strict xfail, "
                    "expectedFailure). Each row records the layers that were active. Thinking off, "
                    "4,096-token cap."
                ),
                cases_factory="hallubench.misled_tests.cases:v1_cases",
                comparable=True,
                prepare=True,
                executes_model_code=True,
                executor_namespaces=True,
            ),
        ),
    ),
    Benchmark(
        name="misled-tests-thinking",
        package="misled_tests",
        summary="misled-tests with thinking on: its commands are misled-tests'",
        report="hallubench.tooling.misled_tests.report:rescore_report",
        headline="hallubench.tooling.misled_tests.report:headline",
        page_view="hallubench.tooling.misled_tests.page:page_view",
        jail_inputs="hallubench.tooling.misled_tests.jail_inputs:humanevalpack_rows",
        data_help=DATA_HELP,
        protocols=(
            ProtocolSpec(
                benchmark="misled-tests-thinking",
                version=1,
                entry="misled_tests/task_v1.py",
                frozen_entry="misled/task_v1.py",
                title=("misled-tests-thinking v1: do models write tests that enshrine the bug? (thinking on)"),
                description=(
                    "The misled-tests v1 protocol for models run with thinking on (16,384-token cap): "
                    "the same 164 HumanEvalPack problems and six conditions, so the two variants compare "
                    "problem by problem."
                ),
                cases_factory="hallubench.misled_tests.cases:v1_thinking_cases",
                executes_model_code=True,
                machine_dependent=("isolation",),
            ),
            ProtocolSpec(
                benchmark="misled-tests-thinking",
                version=2,
                entry="misled_tests/task_v2.py",
                frozen_entry="misled/task_v2.py",
                title=(
                    "misled-tests-thinking v2: do models write tests that enshrine the bug? (thinking on, new executor)"
                ),
                description=(
                    "The misled-tests-thinking v1 cases and prompts (thinking on, 16,384-token cap), byte for "
                    "byte, scored by the misled-tests v2 executor: same path, environment and random order for "
                    "both versions, unforgeable pass evidence, an audit guard without an off switch, and "
                    "namespaces where allowed."
                ),
                cases_factory="hallubench.misled_tests.cases:v1_thinking_cases",
                comparable=True,
                prepare=True,
                executes_model_code=True,
            ),
            ProtocolSpec(
                benchmark="misled-tests-thinking",
                version=3,
                entry="misled_tests/task_v3.py",
                frozen_entry="misled/task_v3.py",
                title=(
                    "misled-tests-thinking v3: do models write tests that enshrine the bug? "
                    "(thinking on, kernel-contained)"
                ),
                description=(
                    "The misled-tests-thinking v1 cases and prompts (thinking on, 16,384-token cap), byte for "
                    "byte, scored by the misled-tests v3 executor: an instance of its own per program version, "
                    "Landlock and seccomp on every process that runs test code, a harness that never runs "
                    "test code, pytest's own verdicts; each row records the layers that were active."
                ),
                cases_factory="hallubench.misled_tests.cases:v1_thinking_cases",
                comparable=True,
                prepare=True,
                executes_model_code=True,
                executor_namespaces=True,
            ),
        ),
    ),
)
