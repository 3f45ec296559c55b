# %% [markdown]
# qa_dataset: a dataset parent. `qa_row` (not stored as a task) is evaluated over a two-row DataFrame with
# `.evaluate(`; every row writes its own run file (named after its index label, `fr` and `sg`) and is embedded in the
# parent's `subruns` in completion order. The loopback stub answers the France row late, so with two jobs the
# Singapore row finishes first although France is the first row. Rows return a dict; the parent a
# `tuple[float, float]` (a score with a confidence interval).

# %%
import kaggle_benchmarks as kbench
import pandas as pd


# %%
@kbench.task(name="qa_row", store_task=False)
def qa_row(llm: kbench.LLMChat, question: str, answer: str) -> dict:
    response = llm.prompt(question)
    return {"is_correct": answer.lower() in response.lower(), "n": 1}


@kbench.task(name="qa_dataset", description="Capital-city QA over a tiny DataFrame")
def qa_dataset(llm: kbench.LLMChat, df: pd.DataFrame) -> tuple[float, float]:
    runs = qa_row.evaluate(llm=[llm], evaluation_data=df, n_jobs=2)
    vals = [r.result["is_correct"] for r in runs]
    return sum(vals) / len(vals), 0.0


# %%
rows = pd.DataFrame(
    {
        "question": ["What's the capital of France", "What's the capital of Singapore"],
        "answer": ["Paris", "Singapore"],
    },
    index=["fr", "sg"],
)
qa_dataset.run(kbench.llm, rows)
