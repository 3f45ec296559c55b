# %%
import kaggle_benchmarks as kbench

TASK_NAME = "computed name"


@kbench.task(name=TASK_NAME)
def computed_task(llm) -> bool:
    return "yes" in llm.prompt("Say yes.")


# %%
computed_task.run(kbench.llm)
