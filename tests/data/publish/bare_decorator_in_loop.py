# %%
from kaggle_benchmarks import task
import kaggle_benchmarks as kbench


@task
def say_yes(llm) -> bool:
    return "yes" in llm.prompt("Say yes.")


# %%
for model in [kbench.llm]:
    say_yes.run(model)
