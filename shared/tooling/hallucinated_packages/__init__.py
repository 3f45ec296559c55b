"""Tooling of the packages benchmark (never embedded)."""
