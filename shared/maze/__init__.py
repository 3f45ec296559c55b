"""hallumaze: single-solution text mazes that measure whether a model notices its own hallucinations.

Every count is verified against the maze by replaying the model's moves; what the model says
about itself is scored apart, as claim accuracy. Modules embedded into the task file
(`task_v2` and what it imports) follow the embedding rules in `hallubench.specs`.
"""
