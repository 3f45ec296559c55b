"""The hallumaze v2 case set (`hallubench.hallumaze.cases:v2_cases`), written to frozen_cases by the build.

Design: every single-shot maze appears with the mirage on and off on the same seed, so the
mirage effect is a paired difference; a smaller confidence-off arm measures what asking for
confidence changes; interactive trials run groups A, B and C on the same seeds, so B minus C
is paired too. Small mazes come first, so `hallubench run hallumaze --limit 3` takes the
cheapest single-shot trials, a mirage pair among them.
"""

from __future__ import annotations

from typing import Any

from .trial import case_id

SIZES = (5, 7, 9, 11)
MAX_TOKENS = 8192


def make_case(
    size: int,
    seed: int,
    *,
    mirage: bool = True,
    confidence: bool = True,
    group: str = "A",
    repeat: int = 0,
    mode: str = "single",
    max_tokens: int | None = MAX_TOKENS,
) -> dict[str, Any]:
    """One case dict with its id derived from its condition."""
    case: dict[str, Any] = {
        "id": case_id(size, seed, mirage=mirage, confidence=confidence, group=group, repeat=repeat, mode=mode),
        "size": size,
        "seed": seed,
        "mirage": mirage,
        "confidence": confidence,
        "group": group,
        "repeat": repeat,
        "mode": mode,
    }
    if max_tokens is not None:
        case["max_tokens"] = max_tokens
    return case


def v2_cases(
    sizes: tuple[int, ...] = SIZES,
    single_seeds: int = 20,
    noconf_seeds: int = 5,
    interactive_seeds: int = 5,
    repeats: int = 1,
) -> list[dict[str, Any]]:
    """240 trials by default: 160 single-shot (mirage on/off pairs), 20 confidence-off, 60 interactive."""
    cases: list[dict[str, Any]] = []
    for size in sizes:
        for seed in range(single_seeds):
            for repeat in range(repeats):
                cases.append(make_case(size, seed, mirage=True, repeat=repeat))
                cases.append(make_case(size, seed, mirage=False, repeat=repeat))
    for size in sizes:
        for seed in range(noconf_seeds):
            cases.append(make_case(size, seed, confidence=False))
    for size in sizes:
        for seed in range(interactive_seeds):
            for group in ("A", "B", "C"):
                cases.append(make_case(size, seed, group=group, mode="interactive"))
    return cases
