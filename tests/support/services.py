"""A benchmark's test services, found by its name in the benchmark's own tests folder: `tests/<package>/services.py`.

The generic suites (`tests/test_protocol_contract.py`, `tests/test_tasks_e2e.py`) run every declared
version the same way; what a benchmark's runs need besides the model lives with its own tests, in
that module, which may define:

- `environment(spec)`: a context manager yielding the environment variables a run of `spec` (a task
  file under kaggle-benchmarks, `play`, and its rescore) needs, with the services behind them up for
  as long as it is open (hallucinated-packages: a loopback PyPI and npm, never the live ones);
- `reply(messages) -> str`: a canned model reply to the conversation so far, for the end-to-end runs
  (a benchmark without one is not run end to end).

A benchmark without the module needs nothing. A new benchmark adds its services there, without
editing the suites.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from hallubench.tooling.specs import ProtocolSpec, Registry

TESTS = Path(__file__).resolve().parents[1]
Reply = Callable[[list[dict[str, Any]]], str]


def services_module(registry: Registry, benchmark: str) -> ModuleType | None:
    """`tests/<package>/services.py` of `benchmark`, loaded once; None when the benchmark has none."""
    declared = registry.benchmark(benchmark)
    if declared is None:
        raise LookupError(f"no benchmark {benchmark!r} is declared")
    path = TESTS / declared.package / "services.py"
    if not path.is_file():
        return None
    name = f"_hallubench_test_services_{declared.package}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextmanager
def environment(registry: Registry, spec: ProtocolSpec) -> Iterator[dict[str, str]]:
    """The environment a run of `spec` needs, its services up until the block ends (empty: it needs none)."""
    module = services_module(registry, spec.benchmark)
    if module is None or not hasattr(module, "environment"):
        yield {}
        return
    with module.environment(spec) as env:
        yield dict(env)


def canned_reply(registry: Registry, benchmark: str) -> Reply | None:
    """The benchmark's canned reply for end-to-end runs, None when it has none."""
    module = services_module(registry, benchmark)
    reply: Reply | None = getattr(module, "reply", None) if module is not None else None
    return reply
