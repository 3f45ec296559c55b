"""Tooling of the misled benchmark (never embedded)."""
