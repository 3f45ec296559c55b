# %%
import kaggle_benchmarks as kbench


@kbench.task(name="lonely task")
def lonely_task(llm) -> bool:
    return "yes" in llm.prompt("Say yes.")


def main():
    lonely_task.run(kbench.llm)
