"""hallumaze: single-solution text mazes that measure whether a model notices its own hallucinations.

Every count is verified against the maze by replaying the model's moves; what the model says
about itself is scored apart, as claim accuracy. Every module here may be embedded into a task
file (the entry modules `task_v2`, `task_v3` and what they import); hallumaze's tooling (report,
baselines and their cache, the changes a newer scorer makes, drawings) is `hallubench.tooling.hallumaze`.
"""
