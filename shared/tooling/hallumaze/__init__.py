"""Tooling of the maze benchmark (never embedded)."""
