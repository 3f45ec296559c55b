# %%
import kaggle_benchmarks as kbench


@kbench.task(name="broken task")
def broken_task(llm) -> bool:
    return "yes" in llm.prompt("Say yes."


broken_task.run(kbench.llm)
