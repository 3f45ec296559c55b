# %%
import kaggle_benchmarks as kbench


@kbench.task(name="first task")
def first_task(llm) -> bool:
    return "yes" in llm.prompt("Say yes.")


@kbench.task(name="second task")
def second_task(llm) -> bool:
    return "no" in llm.prompt("Say no.")


# %%
first_task.run(kbench.llm)
