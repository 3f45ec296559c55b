"""The test-code side of a version: a collector process, forked from the version's harness, and one fork of it per item.

The harness (`version.py`) never runs test code, so no callback, property or hook a test file installs
can ever run with its privileges. The collector is a fresh fork of it; before the test file is imported
there, it drops every descriptor but its report pipe, takes its limits, enters a Landlock domain of its
own (it can then signal no process outside it, the harness included), closes the routes the audit
cannot see (`lockdown.py`) and adds the tripwire (`guard.py`). It collects the file once and runs each
item in a fork of itself, so what one item does dies with that item's process.

The verdict is pytest's own: `runtestprotocol` runs setup, call and teardown with pytest's hooks,
so strict `xfail`, `unittest.expectedFailure` and every other mark mean what pytest says they mean.
pass = the call passed (a non-strict XPASS included); fail = the call failed (a strict XPASS and an
unexpected success included); error = setup or teardown failed, or the item was skipped or
xfailed (neither tells the versions apart). What a test process reports is what its own test
did, so test code that forges it decides only its own outcome, which its test decides anyway.
"""

from __future__ import annotations

import gc
import os
import resource
import sys
from dataclasses import dataclass
from typing import Any

from . import guard, lockdown
from .wire import send

DETAIL_LIMIT = 400


@dataclass(frozen=True)
class ItemPlan:
    """What the collector needs, prepared by the version's harness before the fork."""

    session: Any
    collection_errors: Any
    work: str
    test_file: str
    report_fd: int
    memory_bytes: int
    file_size_bytes: int
    rules: guard.Rules
    lockdown: lockdown.Plan
    confine: Any  # a callable applying this process's own kernel layers (None where there are none)


class CollectionErrors:
    """A pytest plugin (registered by the server) keeping collection failures."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.messages.append(f"{report.nodeid or '<module>'}: {str(report.longrepr)[-3000:]}")


class HiddenPackages:
    """A finder that makes an installed package outside the view absent, as it is in a fresh instance.

    Without a fresh instance (no namespaces) the folders holding the visible packages list every
    installed package; importing one the view leaves out must then fail as a missing module (and
    optional imports fall back), not as a refused file read halfway through the import.
    """

    def __init__(self, listable: tuple[str, ...], read_roots: tuple[str, ...]) -> None:
        self.listable, self.read_roots = listable, read_roots

    def _visible(self, origin: str) -> bool:
        return any(origin == root or origin.startswith(root.rstrip("/") + "/") for root in self.read_roots)

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        from importlib.machinery import PathFinder

        if "." in name or not self.listable:
            return None
        spec = PathFinder.find_spec(name, path)
        if spec is None:
            return None
        folders = list(spec.submodule_search_locations or [])
        top = folders[0] if folders else spec.origin  # a package's folder, or a one-file module
        hidden = isinstance(top, str) and os.path.dirname(top) in self.listable
        if hidden and not self._visible(os.path.realpath(str(top))):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


class LoggedReports:
    """A pytest plugin keeping the reports logged during a run (subtests log theirs during the call)."""

    def __init__(self) -> None:
        self.reports: list[Any] = []

    def pytest_runtest_logreport(self, report: Any) -> None:
        self.reports.append(report)


def _short(text: str, limit: int = DETAIL_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _prepare(plan: ItemPlan) -> Any:
    """Descriptors, limits, kernel layers, lockdown, tripwire: everything before the test file runs."""
    null_in = os.open(os.devnull, os.O_RDONLY)
    null_out = os.open(os.devnull, os.O_WRONLY)
    for target, source in ((0, null_in), (1, null_out), (2, null_out)):
        os.dup2(source, target)
    os.closerange(3, plan.report_fd)
    os.closerange(plan.report_fd + 1, max(resource.getrlimit(resource.RLIMIT_NOFILE)[0], 1024))
    for name, value in (
        ("RLIMIT_AS", plan.memory_bytes),
        ("RLIMIT_FSIZE", plan.file_size_bytes),
        ("RLIMIT_CORE", 0),
        ("RLIMIT_NOFILE", 256),
    ):
        resource.setrlimit(getattr(resource, name), (value, value))
    if plan.confine is not None:
        plan.confine()
    gc.disable()  # no collection walks (and so copies) the pages each item's fork shares with the collector
    sys.meta_path.insert(0, HiddenPackages(plan.rules.listable, plan.rules.read_roots))
    lockdown.apply(plan.lockdown)
    hook, tripped = guard.make_hook(plan.rules)
    sys.addaudithook(hook)
    return tripped


def collect_items(session: Any, path: str) -> list[Any]:
    """The test file's items, collected as `pytest FILE` would (the one module, no directory walk)."""
    from pathlib import Path

    from _pytest.python import Module

    module = Module.from_parent(session, path=Path(path))
    return list(session.genitems(module))


def _collected(plan: ItemPlan) -> tuple[list[Any] | None, str]:
    try:
        items = collect_items(plan.session, plan.work + "/" + plan.test_file)
    except BaseException as exc:
        return None, f"collection stopped: {type(exc).__name__}: {exc}"[:3000]
    if plan.collection_errors.messages:
        return None, "; ".join(plan.collection_errors.messages)[:6000]
    return items, ""


def _kind(report: Any) -> str:
    """The exception type pytest reports for a failed phase (or its own word, e.g. XPASS(strict))."""
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    message = str(getattr(crash, "message", "") or getattr(report, "longrepr", "") or "")
    first = message.strip().splitlines()[0] if message.strip() else ""
    if first.startswith("[XPASS(strict)]"):
        return "XPASS(strict)"
    if "Unexpected success" in message:
        return "unexpected success"
    head = first.split(":", 1)[0].strip().rsplit(".", 1)[-1]  # the class name, without the module it lives in
    return head if head.replace("_", "").isalnum() else "failed"


def _detail(report: Any) -> str:
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    return _short(str(getattr(crash, "message", "") or getattr(report, "longrepr", "") or ""))


def verdict(reports: list[Any]) -> dict[str, str]:
    """One item's outcome from pytest's reports of its phases (a phase may have several: subtests)."""
    by_phase: dict[str, Any] = {}
    for report in reports:  # per phase, its first failed report, else its last one
        earlier = by_phase.get(report.when)
        if earlier is None or not earlier.failed:
            by_phase[report.when] = report
    setup, call, teardown = by_phase.get("setup"), by_phase.get("call"), by_phase.get("teardown")
    if setup is not None and setup.failed:
        return {"outcome": "error", "kind": "setup error", "detail": f"{_kind(setup)}: {_detail(setup)}"}
    for phase in (setup, call):
        if phase is not None and phase.skipped:
            kind = "XFailed" if hasattr(phase, "wasxfail") else "skipped"
            return {"outcome": "error", "kind": kind, "detail": _detail(phase)}
    if call is None:
        return {"outcome": "error", "kind": "not run", "detail": ""}
    if call.failed:
        return {"outcome": "fail", "kind": _kind(call), "detail": _detail(call)}
    if teardown is not None and teardown.failed:
        return {"outcome": "error", "kind": "teardown error", "detail": f"{_kind(teardown)}: {_detail(teardown)}"}
    return {"outcome": "pass", "kind": "xpassed" if hasattr(call, "wasxfail") else "passed", "detail": ""}


def _run_item(item: Any, index: int, report_fd: int, tripped: Any, logged: LoggedReports) -> None:
    """The body of an item's own process; never returns."""
    try:
        from _pytest.runner import runtestprotocol

        reports = runtestprotocol(item, log=False, nextitem=None)
        send(report_fd, {"type": "item", "index": index, **verdict([*reports, *logged.reports]), "tripped": tripped()})
    except BaseException as exc:
        try:
            kind = f"harness: {type(exc).__name__}"
            send(report_fd, {"type": "item", "index": index, "outcome": "error", "kind": kind, "detail": ""})
        except BaseException:
            pass
    finally:
        os._exit(0)


def run_collector(plan: ItemPlan, wanted: tuple[int, ...] | None) -> None:
    """The test-code process of a version; never returns. It collects the file, reports the items, then runs
    each wanted one (by index) in a fork of itself: `start`, then the item's own `item` record.

    Everything here may be rewritten by the test file it imports: it reports to the version's harness,
    which trusts it with nothing but this version's own outcomes and enforces every deadline itself.
    """
    report_fd = plan.report_fd
    try:
        tripped = _prepare(plan)
        items, error = _collected(plan)
        if items is None:
            send(report_fd, {"type": "collection_error", "detail": error})
            return
        send(report_fd, {"type": "collected", "items": [str(item.nodeid) for item in items]})
        logged = LoggedReports()  # what a run reports besides its phases (subtests); each item's fork its own copy
        plan.session.config.pluginmanager.register(logged, "hallubench-logged-reports")
        gc.freeze()
        for index, item in enumerate(items):
            if wanted is not None and index not in wanted:
                continue
            send(report_fd, {"type": "start", "index": index})
            pid = os.fork()
            if pid == 0:
                _run_item(item, index, report_fd, tripped, logged)
            os.waitpid(pid, 0)
        send(report_fd, {"type": "collector_done"})
    except BaseException as exc:
        try:  # noqa: SIM105 (no library helper here: test code may have replaced it)
            send(report_fd, {"type": "collector_error", "detail": f"{type(exc).__name__}"})
        except BaseException:
            pass
    finally:
        os._exit(0)  # whatever happened, the collector ends here
