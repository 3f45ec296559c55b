# %% [markdown]
# riddle_check: the minimal fixture. One request (a system message, then the riddle), two assertions of which the
# second fails on purpose (an assertion's `definition` is the first line of its call only), and a `-> bool` result
# taken from the return value. Run against the loopback stub by
# `scripts/make_kbench_fixtures.py` with WRITE_ATIF=True, so the ATIF and result companions are written too.

# %%
import kaggle_benchmarks as kbench


# %%
@kbench.task(name="riddle_check", description="Does the model solve a riddle?", version=3)
def riddle_check(llm: kbench.LLMChat, riddle: str, answer: str) -> bool:
    kbench.system.send("Answer in one short sentence.")  # recorded as CONTENT_ROLE_SYSTEM
    response = llm.prompt(riddle)
    kbench.assertions.assert_contains_regex(
        f"(?i){answer}",
        response,
        expectation="LLM should give the right answer.",
    )
    kbench.assertions.assert_in("xyz", response, expectation="Deliberately failing check.")
    return answer.lower() in response.lower()


# %%
riddle_check.run(kbench.llm, riddle="What gets wetter as it dries?", answer="towel")
