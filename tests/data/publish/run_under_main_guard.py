# %%
import kaggle_benchmarks as kbench


@kbench.task(name="guarded task")
def guarded_task(llm) -> bool:
    return "yes" in llm.prompt("Say yes.")


# %%
if __name__ == "__main__":
    guarded_task.run(kbench.llm)
