"""Never embedded into a task file: the commands and everything they need."""
