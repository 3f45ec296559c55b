"""Every HumanEvalPack bug is detectable by misled-tests v1's executor (from its frozen task file): the bundled test
of each of the 164 problems is effective."""

from __future__ import annotations

import pytest

from hallubench.misled_tests.data import Problem

from support.frozen import embedded_module, frozen_for_session

# misled-tests v1 is superseded: its executor as v1's frozen task file has it, never today's shared/ copy.
V1 = frozen_for_session("misled-tests/v1")
bundled_test_file = embedded_module(V1, "classify").bundled_test_file
classify_files = embedded_module(V1, "classify").classify_files
Limits = embedded_module(V1, "sandbox").Limits


@pytest.mark.slow
def test_all_164_bundled_tests_classify_as_effective(problems: dict[str, Problem]) -> None:
    ordered = sorted(problems.values(), key=lambda problem: problem.number)
    # Halves in two threads: each half is one sandbox batch (one interpreter start for 82 files).
    from concurrent.futures import ThreadPoolExecutor

    halves = [ordered[0::2], ordered[1::2]]
    with ThreadPoolExecutor(max_workers=2) as pool:
        parts = list(
            pool.map(
                lambda half: classify_files([(p, bundled_test_file(p)) for p in half], limits=Limits()),
                halves,
            )
        )
    results = {found.problem: found for part in parts for found in part}
    assert len(results) == 164
    not_effective = {
        task_id: (found.status, found.detail[:200], found.tests)
        for task_id, found in results.items()
        if found.status != "ok" or [test["outcome"] for test in found.tests] != ["effective"]
    }
    assert not_effective == {}
    timeouts = sorted(task for task, found in results.items() if found.tests[0]["buggy"] == "timeout")
    assert timeouts == ["Python/10", "Python/156", "Python/160"]
