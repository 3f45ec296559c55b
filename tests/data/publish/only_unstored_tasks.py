# %%
from kaggle_benchmarks import task
import kaggle_benchmarks as kbench


@task(name="row only", store_task=False)
def row_only(llm) -> bool:
    return "yes" in llm.prompt("Say yes.")


# %%
row_only.run(kbench.llm)
