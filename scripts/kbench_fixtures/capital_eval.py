# %% [markdown]
# capital_eval: cached subruns. A dataset parent evaluates `capital_row` inside `kbench.client.enable_cache()` and is
# run twice: the first run writes the row files, the second restores both rows from them (`cached`, no conversation,
# no times). The model is an in-process fake `LLMChat` named `fake/canned-1`: no server, no network.

# %%
from typing import Any

import kaggle_benchmarks as kbench
import pandas as pd
from kaggle_benchmarks.actors.llms import LLMChat, LLMResponse
from kaggle_benchmarks.messages import Message


class CannedLLM(LLMChat):
    """Answers the France question right and every other question wrong."""

    def invoke(self, messages: list[Message], system: str | None = None, **kwargs: Any) -> LLMResponse:
        question = str(messages[-1].content)
        return LLMResponse(content="Paris." if "France" in question else "I am not sure.")


# %%
@kbench.task(name="capital_row", store_task=False)
def capital_row(llm: kbench.LLMChat, question: str, answer: str) -> bool:
    return answer.lower() in llm.prompt(question).lower()


@kbench.task(name="capital_eval", description="toy dataset eval")
def capital_eval(llm: kbench.LLMChat, df: pd.DataFrame) -> float:
    with kbench.client.enable_cache():
        runs = capital_row.evaluate(llm=[llm], evaluation_data=df)
    return sum(bool(r.result) for r in runs) / len(runs)


# %%
rows = pd.DataFrame(
    {"question": ["What is the capital of France?", "What is the capital of Peru?"], "answer": ["Paris", "Lima"]},
    index=["fr", "pe"],
)
model = CannedLLM(name="fake/canned-1")
capital_eval.run(model, rows)  # runs both rows and writes their files
capital_eval.run(model, rows)  # restores both rows from those files
