# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # demo-v1
# A hand-written stand-in for a generated hallubench task file, used by the runner tests.
# It follows the generator's conventions: env `HALLUBENCH_LIMIT` caps the number of cases;
# when env `HALLUBENCH_PROGRESS_FILE` is set, one JSON line per finished row is appended:
# `{"done": i, "total": n, "case_id": "..."}`.

# %%
import json
import os
import threading

import kaggle_benchmarks as kbench
import pandas as pd

CASES = [
    {"case_id": "capital-fr", "question": "What is the capital of France? Answer with one word.", "expect": "paris"},
    {"case_id": "sum-2-3", "question": "What is 2 + 3? Answer with a number only.", "expect": "5"},
    {"case_id": "color-sky", "question": "What colour is a clear daytime sky? Answer with one word.", "expect": "blue"},
]


def render(case: dict) -> str:
    return "Demo question " + case["case_id"] + ": " + case["question"]


# %%
_limit = os.environ.get("HALLUBENCH_LIMIT")
SELECTED = CASES[: int(_limit)] if _limit else CASES
_progress_path = os.environ.get("HALLUBENCH_PROGRESS_FILE")
_progress_lock = threading.Lock()
_progress_done = [0]


def _report_progress(case_id: str) -> None:
    if not _progress_path:
        return
    with _progress_lock:
        _progress_done[0] += 1
        line = {"done": _progress_done[0], "total": len(SELECTED), "case_id": case_id}
        with open(_progress_path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")


@kbench.task(name="demo_v1_row", store_task=False)
def row(llm, case_json: str) -> dict:
    case = json.loads(case_json)
    try:
        reply = llm.prompt(render(case))
        verdict = "pass" if case["expect"] in reply.lower() else "fail"
        return {"case_id": case["case_id"], "verdict": verdict, "reply_chars": len(reply)}
    finally:
        _report_progress(case["case_id"])


@kbench.task(name="demo-v1", description="Runner test task: three one-line questions.")
def demo_v1(llm) -> float:
    df = pd.DataFrame({"case_json": [json.dumps(case) for case in SELECTED]})
    runs = row.evaluate(llm=[llm], evaluation_data=df, n_jobs=1, on_failure="continue")
    verdicts = [run.result["verdict"] if isinstance(run.result, dict) else "error" for run in runs]
    return sum(v == "pass" for v in verdicts) / max(len(verdicts), 1)


# %%
demo_v1.run(kbench.llm)
