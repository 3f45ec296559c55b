"""`misled classify` inside the jail: what the jail worker runs, and the host side that asks it to.

The worker receives the problem's fields and the test files as JSON and returns each file's
classification as JSON; the executor it runs (`hallubench.misled_tests`) then adds its own layers per
program version inside the jail. Nothing of the host is readable there, the data set included:
the problem comes in the request.
"""

from __future__ import annotations

from typing import Any

from ..jail.client import Jail
from ..jail.policy import JailFailed, JailPolicy

CLASSIFY = "hallubench.tooling.misled_tests.jailed:classify_in_jail"


def classify_in_jail(
    pairs: list[tuple[dict[str, str], str]], item_timeout_s: float, namespaces: bool, workers: int
) -> list[dict[str, Any]]:
    """Runs in the jail worker: classify each (problem fields, test source) pair with the executor."""
    from ...misled_tests.data import Problem
    from ...misled_tests.executor.host import Limits
    from ...misled_tests.verdicts import classify_files

    limits = Limits(item_timeout_s=item_timeout_s, namespaces=namespaces)
    found = [(Problem(**problem), source) for problem, source in pairs]
    results = classify_files(found, limits=limits, workers=workers)
    return [{**item.as_dict(), "isolation": item.isolation} for item in results]


def classify(
    pairs: list[tuple[dict[str, str], str]],
    *,
    item_timeout_s: float,
    namespaces: bool,
    workers: int,
    accept_missing: frozenset[str] = frozenset(),
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Each (problem fields, test source) pair's classification from a jail worker, and the jail's layers.

    Raises JailRefused (a layer is missing and not accepted) or JailFailed (the jail broke).
    """
    policy = JailPolicy(nested_namespaces=True, accept_missing=accept_missing)
    with Jail(policy) as jail:
        answer = jail.request(
            {
                "op": "call",
                "function": CLASSIFY,
                "arguments": {
                    "pairs": [list(pair) for pair in pairs],
                    "item_timeout_s": item_timeout_s,
                    "namespaces": namespaces,
                    "workers": workers,
                },
            }
        )
        layers = jail.layers
    if "error" in answer:
        raise JailFailed(f"the jail worker failed: {answer['error']}")
    result = answer.get("result")
    if not isinstance(result, list) or len(result) != len(pairs) or not all(isinstance(r, dict) for r in result):
        raise JailFailed("the jail worker sent a malformed answer")
    return result, layers
