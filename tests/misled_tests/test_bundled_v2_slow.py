"""Every HumanEvalPack bug is still detectable through the v2 executor: each bundled test is effective."""

from __future__ import annotations

import pytest

from hallubench.misled_tests.data import Problem
from hallubench.misled_tests.executor.host import Limits
from hallubench.misled_tests.verdicts import bundled_test_file, classify_files


@pytest.mark.slow
def test_all_164_bundled_tests_classify_as_effective(problems: dict[str, Problem]) -> None:
    ordered = sorted(problems.values(), key=lambda problem: problem.number)
    found = classify_files([(problem, bundled_test_file(problem)) for problem in ordered], limits=Limits(), workers=2)
    results = {item.problem: item for item in found}
    assert len(results) == 164
    not_effective = {
        task_id: (item.status, item.detail[:200], item.tests)
        for task_id, item in results.items()
        if item.status != "ok" or [test["outcome"] for test in item.tests] != ["effective"]
    }
    assert not_effective == {}
    timeouts = sorted(task for task, item in results.items() if item.tests[0]["buggy"] == "timeout")
    assert timeouts == ["Python/10", "Python/156", "Python/160"]
