# %% [markdown]
# unicode_zero_score: a zero numeric score (proto3 writes `"numericResult": {}`) and non-ASCII text both ways
# (written `\u`-escaped). The generator feeds this file to `python -` on stdin, so kbench cannot find the task's
# source and writes no `definition`. The model is an in-process fake `LLMChat` named `echo` that reports no usage.

# %%
from typing import Any

import kaggle_benchmarks as kbench
from kaggle_benchmarks.actors.llms import LLMChat, LLMResponse
from kaggle_benchmarks.messages import Message


class EchoLLM(LLMChat):
    """Replies with a fixed line in three scripts (the `о` is Cyrillic) and reports no token counts."""

    def invoke(self, messages: list[Message], system: str | None = None, **kwargs: Any) -> LLMResponse:
        return LLMResponse(content="éch\N{CYRILLIC SMALL LETTER O} ✓\n")


# %%
@kbench.task(name="unicode check")
def unicode_check(llm: kbench.LLMChat) -> float:
    llm.prompt("Café ☕  \ttrailing  \n")
    return 0.0


# %%
unicode_check.run(EchoLLM(name="echo"))
