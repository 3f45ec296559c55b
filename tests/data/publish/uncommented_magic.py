# %%
!pip install kaggle-benchmarks
import kaggle_benchmarks as kbench


@kbench.task(name="magic task")
def magic_task(llm) -> bool:
    return "yes" in llm.prompt("Say yes.")


# %%
magic_task.run(kbench.llm)
%choose magic_task
