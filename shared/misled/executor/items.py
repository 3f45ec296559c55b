"""One collected test item, run in its own process: setup, the test function, teardown, then the verdict.

An item passes only when its test function returned normally (and its setup and teardown did too).
That is decided here by control flow alone: `run_item` reaches the line that calls `claim` only
after `call_test` returned None, and `call_test` returns None only when the call of the test
function itself returned; any exception, from the test, from a patched pytest or from a fixture,
takes the other branch. `claim` then creates this item's pass file, the one thing the server
counts as a pass. The audit hook allows that file to be created from nowhere else (see guard.py),
and every helper here is bound as a default argument when the module is loaded, before any test
code exists, so replacing module globals changes nothing, and the hook refuses new code or
defaults for these functions. Failure details go to the version process over an ordinary pipe: test
code may write there too, but nothing written there can make a pass.

pytest is used for what it is good at (collection, fixtures, parametrization, marks), through its
setup and teardown hooks; the test function is called here, not through `pytest_pyfunc_call`, and no
pytest report decides anything.
"""

from __future__ import annotations

import inspect
import os
from typing import Any

from .wire import send

FAILED = "failed"
SKIP_KINDS = frozenset({"Skipped", "SkipTest", "XFailed"})
PASS_RECORD = {"outcome": "pass", "kind": "returned", "detail": ""}


class AsyncTestNotSupported(TypeError):
    """An async test function (or one returning an awaitable): the executor does not run event loops."""


def _short(text: str, limit: int = 400) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _describe(exc: BaseException) -> str:
    try:
        return _short(str(exc))
    except BaseException:
        return f"<{type(exc).__name__} that cannot be shown>"


def _unittest_target(item: Any) -> Any:
    """A callable running a unittest.TestCase method as unittest would: setUp, method, tearDown, cleanups."""
    case: Any = getattr(item, "instance", None)
    if case is None:
        case = getattr(item, "_testcase", None)
    method = getattr(case, item.name)
    if getattr(type(case), "__unittest_skip__", False) or getattr(method, "__unittest_skip__", False):
        why = getattr(method, "__unittest_skip_why__", "") or getattr(type(case), "__unittest_skip_why__", "")
        import unittest

        raise unittest.SkipTest(why)

    def run() -> None:
        case.setUp()
        try:
            method()
        finally:
            case.tearDown()
        if case.doCleanups() is False:
            raise RuntimeError("a cleanup function of the test case raised")

    return run


def _refuse_unrun_xfail(item: Any) -> None:
    """`xfail(run=False)` means the test is not run (pytest raises XFailed before the call)."""
    from _pytest.outcomes import xfail
    from _pytest.skipping import evaluate_xfail_marks, xfailed_key

    xfailed = item.stash.get(xfailed_key, None)
    if xfailed is None:
        xfailed = evaluate_xfail_marks(item)
    if xfailed and not xfailed.run and not item.config.option.runxfail:
        xfail("[NOTRUN] " + xfailed.reason)


def _function_and_arguments(item: Any) -> tuple[Any, dict[str, Any]]:
    from _pytest.unittest import TestCaseFunction

    _refuse_unrun_xfail(item)
    if isinstance(item, TestCaseFunction):
        return _unittest_target(item), {}
    names = item._fixtureinfo.argnames
    return item.obj, {name: item.funcargs[name] for name in names}


def _entered(context: Any) -> Any:
    """Enter a context manager, or a generator pytest drives with `yield from` (pytest 8); return its exit."""
    if hasattr(context, "__enter__"):
        context.__enter__()
        return lambda: context.__exit__(None, None, None)
    next(context)

    def leave_generator() -> None:
        try:
            next(context)
        except StopIteration:
            return

    return leave_generator


def enter_protocol(item: Any) -> list[Any]:
    """What pytest keeps around a whole item: its warning filters (`filterwarnings` marks), entered by hand."""
    from _pytest.warnings import catch_warnings_for_item

    return [_entered(catch_warnings_for_item(config=item.config, ihook=item.ihook, when="runtest", item=item))]


def enter_call_phase(item: Any) -> list[Any]:
    """What pytest keeps around the call: log capture (caplog) and output capture (capsys), entered by hand.

    They are entered and left around `call_test`, never wrapped around the call itself, so
    whatever they do they cannot see or swallow the test's exception.
    """
    entered = []
    manager = item.config.pluginmanager
    for name, method, arguments in (
        ("logging-plugin", "_runtest_for", (item, "call")),
        ("capturemanager", "item_capture", ("call", item)),
    ):
        factory = getattr(manager.get_plugin(name), method, None)
        if factory is not None:
            entered.append(_entered(factory(*arguments)))
    return entered


def leave(entered: list[Any]) -> None:
    for exit_context in reversed(entered):
        exit_context()


def call_test(
    item: Any,
    _target: Any = _function_and_arguments,
    _is_async: Any = inspect.iscoroutinefunction,
    _is_awaitable: Any = inspect.isawaitable,
    _failed: str = FAILED,
) -> tuple[str, BaseException] | None:
    """None when the test function returned normally, else (FAILED, the exception)."""
    try:
        function, arguments = _target(item)
        if _is_async(function):
            raise AsyncTestNotSupported("async test functions are not run")
        result = function(**arguments)
    except BaseException as exc:
        return (_failed, exc)
    if _is_awaitable(result):
        close = getattr(result, "close", None)
        if close is not None:
            close()
        return (_failed, AsyncTestNotSupported("the test function returned an awaitable, which is not run"))
    return None


def run_setup(item: Any) -> BaseException | None:
    try:
        item.ihook.pytest_runtest_setup(item=item)
    except BaseException as exc:
        return exc
    return None


def run_teardown(item: Any) -> BaseException | None:
    try:
        from _pytest import tmpdir

        key = getattr(tmpdir, "tmppath_result_key", None)
        if key is not None:
            item.stash.setdefault(key, {})  # filled by pytest's report hooks, which are not run here
        item.ihook.pytest_runtest_teardown(item=item, nextitem=None)
    except BaseException as exc:
        return exc
    return None


def claim(
    path: str, _open: Any = os.open, _close: Any = os.close, _flags: int = os.O_WRONLY | os.O_CREAT | os.O_EXCL
) -> None:
    """Create this item's pass file (the hook allows this call from `run_item`'s claim line only)."""
    _close(_open(path, _flags, 0o600))


def failure_record(stage: str, exc: BaseException) -> dict[str, Any]:
    kind = type(exc).__name__
    if kind in SKIP_KINDS:
        return {"outcome": "error", "kind": "skipped" if kind != "XFailed" else kind, "detail": _describe(exc)}
    if stage == "setup":
        return {"outcome": "error", "kind": "setup error", "detail": f"{kind}: {_describe(exc)}"}
    if stage == "teardown":
        return {"outcome": "error", "kind": "teardown error", "detail": f"{kind}: {_describe(exc)}"}
    return {"outcome": "fail", "kind": kind, "detail": _describe(exc)}


def finish_item(
    item: Any, surroundings: list[Any], protocol: list[Any], _leave: Any = leave, _teardown: Any = run_teardown
) -> BaseException | None:
    """Leave the call's surroundings, tear down, leave the item's: teardown's exception, or None."""
    _leave(surroundings)
    after: BaseException | None = _teardown(item)
    _leave(protocol)
    return after


def run_item(
    item: Any,
    pass_path: str,
    details_fd: int,
    _protocol: Any = enter_protocol,
    _setup: Any = run_setup,
    _enter: Any = enter_call_phase,
    _call: Any = call_test,
    _leave: Any = leave,
    _teardown: Any = run_teardown,
    _finish: Any = finish_item,
    _claim: Any = claim,
    _failure: Any = failure_record,
    _send: Any = send,
    _pass_record: dict[str, Any] = PASS_RECORD,
    _exit: Any = os._exit,
) -> None:
    """The body of an item process; never returns. The pass line is the one that loads `_claim`.

    Which branch runs is decided the moment `_call` returns, before any other test code runs again,
    and the only later test is on `after`, assigned from `_finish`'s return with no test code in
    between: so even where frame locals are writable (Python 3.13+), no fixture finalizer can turn
    a test that raised into a claim.
    """
    try:
        protocol = _protocol(item)
        failed = _setup(item)
        if failed is not None:
            _teardown(item)
            _leave(protocol)
            _send(details_fd, _failure("setup", failed))
        else:
            surroundings = _enter(item)
            raised = _call(item)
            if raised is None:
                after = _finish(item, surroundings, protocol)
                if after is None:
                    _claim(pass_path)
                    _send(details_fd, _pass_record)
                else:
                    _send(details_fd, _failure("teardown", after))
            else:
                _finish(item, surroundings, protocol)
                _send(details_fd, _failure("call", raised[1]))
    except BaseException as exc:
        try:  # noqa: SIM105 (no library helper here: test code may have replaced it)
            _send(details_fd, {"outcome": "error", "kind": f"harness: {type(exc).__name__}", "detail": _describe(exc)})
        except BaseException:
            pass
    finally:
        _exit(0)  # whatever happened (even an `except` that matched nothing): the item process ends here
