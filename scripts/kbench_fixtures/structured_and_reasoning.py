# %% [markdown]
# structured_and_reasoning: `schema=` (a dataclass, then `int`), `reasoning=` in a nested side chat, and
# `respond(system=...)`. Run on two models behind the loopback stub: `stub/model-a` gets native structured output
# (`response_format`), `meta/stub-llama` the prompt-instructed kind (kbench turns it off for `meta` models). When the
# stub answers the native request with fenced JSON, parsing fails and the run file is ERRORED; the generator runs
# this file a second time like that, in Kaggle's batch mode, which writes the errored file and carries on.

# %%
from dataclasses import dataclass

import kaggle_benchmarks as kbench


@dataclass
class Person:
    name: str
    age: int
    occupation: str


# %%
@kbench.task(name="structured_and_reasoning")
def structured_and_reasoning(llm: kbench.LLMChat) -> float:
    """Exercises schema=, reasoning= and respond(system=...)."""
    p = llm.prompt("Extract name, age and occupation: Marie Curie, 66, physicist.", schema=Person)
    kbench.assertions.assert_equal(66, p.age, expectation="age is 66")
    with kbench.chats.new("reasoning side chat"):
        llm.prompt("How many r's are in 'strawberry'?", reasoning="high")
        traces = kbench.last_reasoning_traces()
    kbench.assertions.assert_true(traces is not None, expectation="reasoning traces captured")
    kbench.user.send("What is the capital of France?")
    llm.respond(system="You are a geography bot.")
    n = llm.prompt("Pick a number.", schema=int)
    return float(p.age) / 100 + n


# %%
structured_and_reasoning.run(kbench.llm)
structured_and_reasoning.run(kbench.llms["meta/stub-llama"])
