# %% [markdown]
# A task file whose stored task raises: the runner must exit non-zero and show why.

# %%
import kaggle_benchmarks as kbench


@kbench.task(name="raises-v1")
def raises_v1(llm) -> float:
    raise ValueError("scorer exploded on purpose")


# %%
raises_v1.run(kbench.llm)
