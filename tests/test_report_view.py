"""The page asks the benchmark of the rescored protocol for its part (`page_view`), and knows none by name."""

from __future__ import annotations

import pytest

from hallubench.tooling.report_html import render_page
from hallubench.tooling.report_html.view import view_hook
from hallubench.tooling.specs import Benchmark, HookError, ProtocolSpec, Registry

SPEC = ProtocolSpec(benchmark="pv-demo", version=1, entry="pv_demo/task_v1.py", title="t", description="d")


def _registry(page_view: str | None) -> Registry:
    return Registry((Benchmark("pv-demo", "pv_demo", "s", (SPEC,), page_view=page_view),))


def test_the_hook_of_the_protocols_benchmark_is_found_and_loaded() -> None:
    name, hook = view_hook("pv-demo/v1", _registry("hallubench.tooling.hallumaze.page:page_view"))
    from hallubench.tooling.hallumaze.page import page_view

    assert (name, hook) == ("pv-demo", page_view)
    assert view_hook("pv-demo/v1", _registry(None)) == ("pv-demo", None)
    assert view_hook("other/v4", _registry(None)) == ("other", None), "an undeclared protocol gets the generic page"


def test_a_declared_view_that_does_not_import_is_an_error_naming_it() -> None:
    with pytest.raises(HookError, match=r"the page view of pv-demo .hallubench\.no_such_module:view. failed to import"):
        view_hook("pv-demo/v1", _registry("hallubench.no_such_module:view"))


def test_a_protocol_no_benchmark_declares_gets_the_generic_page() -> None:
    result = {"task": {"protocol": "unknown/v1", "path": "x.py", "payload_sha256": "0" * 64}, "models": {}}
    page = render_page(result)
    assert 'data-benchmark="unknown"' in page and "window.hallubenchView = function" not in page
    assert "No leaderboard: no row verified, so nothing was scored." in page
