"""hallumaze: does the model notice its own hallucinations in a maze, and recover?

Every version here was frozen while the package folder was `shared/maze/`: its task file embeds its
modules under `maze/`, which `frozen_entry` records (see `ProtocolSpec.path_today`).
"""

from __future__ import annotations

from ..specs import Benchmark, ProtocolSpec, ScorerChange

BENCHMARKS = (
    Benchmark(
        name="hallumaze",
        package="hallumaze",
        summary="render prompts, score replies, draw mazes, simulate baselines",
        cli_aliases=("maze",),
        commands="hallubench.tooling.hallumaze.commands",
        report="hallubench.tooling.hallumaze.report:rescore_report",
        headline="hallubench.tooling.hallumaze.report:headline",
        page_view="hallubench.tooling.hallumaze.page:page_view",
        scorer_changes=(ScorerChange(2, 3, "hallubench.tooling.hallumaze.changes:explain"),),
        protocols=(
            ProtocolSpec(
                benchmark="hallumaze",
                version=2,
                entry="hallumaze/task_v2.py",
                frozen_entry="maze/task_v2.py",
                title="hallumaze v2: does the model notice its own hallucinations in a maze, and recover?",
                description=(
                    "Single-solution text mazes in the HalluMaze v1.1 answer format (STEP lines with "
                    "confidence, DEAD_END, LOOP, BACKTRACK_COUNT, HALLUCINATION_COUNT, FINAL_PATH), plus "
                    "an interactive Ariadne's Thread mode. Every count is verified by replaying the "
                    "model's moves against the maze: wall crossings, backtracks, loops, dead ends and "
                    "lure-following are measured, never taken from the model's word; the model's own "
                    "claims are scored separately as claim accuracy, and calibration is measured per "
                    "step (ECE, Brier, AUROC)."
                ),
                cases_factory="hallubench.hallumaze.cases:v2_cases",
            ),
            ProtocolSpec(
                benchmark="hallumaze",
                version=3,
                entry="hallumaze/task_v3.py",
                frozen_entry="maze/task_v3.py",
                title="hallumaze v3: v2's prompts, v2's scorer flaws fixed (BRS as lure resistance, labels, speed)",
                description=(
                    "The hallumaze v2 protocol with byte-identical prompts and cases, so v2's hosted runs rescore "
                    "under it. Single-solution text mazes in the HalluMaze v1.1 answer format plus an interactive "
                    "Ariadne's Thread mode; every count is verified by replaying the model's moves against the "
                    "maze. Fixed against v2: BRS is the share of lure exposures resisted on the verified walk (v2 "
                    "kept v1.1's formula, which gave 1.0 to a failed trial that never crossed a wall); "
                    "CONFIDENCE_LOG and FINAL_PATH are read where their labels stand; any reply is scored in time "
                    "linear in its length."
                ),
                cases_factory="hallubench.hallumaze.cases:v2_cases",
            ),
        ),
    ),
)
