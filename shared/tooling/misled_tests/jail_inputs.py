"""What a frozen misled-tests executor reads inside the jail: the HumanEvalPack rows of the cases, no more.

misled-tests v1's `render` and `play` read HumanEvalPack by path (`$HALLUBENCH_HUMANEVALPACK`), and
nothing on the host is readable in the jail. So the host loads and verifies the data as usual and
hands in a JSONL of just the problems the cases name, as a memory file the jail worker alone can
open (v2 and later get each problem inside the prepared case and read no file).
"""

from __future__ import annotations

import json
from typing import Any

from ...misled_tests.data import ENV_VAR, cached_problems


def humanevalpack_rows(cases: list[dict[str, Any]]) -> dict[str, bytes]:
    """`{HALLUBENCH_HUMANEVALPACK: JSONL bytes}` holding the used fields of every problem a case names."""
    problems = cached_problems()
    wanted = sorted({str(case["problem"]) for case in cases if str(case.get("problem")) in problems})
    lines = [json.dumps(problems[task_id].fields(), ensure_ascii=True) for task_id in wanted]
    return {ENV_VAR: ("\n".join(lines) + "\n").encode("ascii")}
