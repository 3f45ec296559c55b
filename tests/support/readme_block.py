"""The README's "What you will see" block, and the check that printed output holds its lines in order."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ELLIPSIS = "…"


def readme_block() -> list[str]:
    """The lines of the first fenced block under "### What you will see"."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("### What you will see\n", 1)[1]
    fenced = section.split("```text\n", 1)[1].split("```", 1)[0]
    return fenced.splitlines()


def unmatched(expected: list[str], printed: list[str]) -> list[str]:
    """The lines of `expected` not found in `printed` in order (`…` alone skips ahead; `x…` matches a prefix)."""
    missing: list[str] = []
    position = 0
    for line in expected:
        if line == ELLIPSIS:
            continue
        prefix = line.endswith(ELLIPSIS)
        wanted = line.removesuffix(ELLIPSIS).rstrip() if prefix else line.rstrip()
        for index in range(position, len(printed)):
            candidate = printed[index].rstrip()
            if candidate.startswith(wanted) if prefix else candidate == wanted:
                position = index + 1
                break
        else:
            missing.append(line)
    return missing
