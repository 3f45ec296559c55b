# %% [markdown]
# # Riddle check
# A tiny hand-written task used by the push tests: one stored task, row tasks not stored.

# %%
import kaggle_benchmarks as kbench

RIDDLES = [
    {"id": "r1", "question": "What has keys but no locks?", "answer": "piano"},
    {"id": "r2", "question": "What gets wetter the more it dries?", "answer": "towel"},
]


# %%
@kbench.task(name="riddle_row", store_task=False)
def riddle_row(llm, question: str, answer: str) -> bool:
    reply = llm.prompt(question)
    return answer in reply.lower()


@kbench.task(name="Riddle Check", description="Answers two riddles.")
def riddle_check(llm) -> float:
    passed = [riddle_row.run(llm, question=r["question"], answer=r["answer"]).result for r in RIDDLES]
    return sum(bool(p) for p in passed) / len(passed)


# %%
# %choose riddle_check
riddle_check.run(kbench.llm)
