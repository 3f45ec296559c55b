# %% [markdown]
# no_llm_passcount_zero: a task that uses no LLM (run with `llm=None`, so `modelVersion` is `{}`) and returns a
# PassCount of 0 out of 10, which proto3 writes as `{"confidenceInterval": 10.0}` (the zero value is dropped).

# %%
import kaggle_benchmarks as kbench


# %%
@kbench.task(name="no llm", version=2)
def nollm(llm: kbench.LLMChat | None, x: int) -> tuple[int, int]:
    return (x, 10)


# %%
nollm.run(None, x=0)
