"""hallumaze: single-solution text mazes that measure whether a model notices its own hallucinations.

Every count is verified against the maze by replaying the model's moves; what the model says
about itself is scored apart, as claim accuracy. Modules embedded into task files (the entry
modules `task_v2`, `task_v3` and what they import) follow the embedding rules in
`hallubench.specs`; `report`, `baselines`, `baseline_cache`, `changes` and `draw` are tooling.
"""
