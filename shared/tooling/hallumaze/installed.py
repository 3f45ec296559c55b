"""The scorer hallumaze's tooling uses when it is given no task file: the newest declared version, as installed.

Baselines played without a task file, human baselines scored without one, `hallubench maze render`
and the report's glossary then follow the newest version the declaration lists, found through the
registry: declaring a new version is the only edit that moves them, none is hard-wired here.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from types import ModuleType

from ..specs import installed_registry

BENCHMARK = "hallumaze"


@dataclass(frozen=True)
class Installed:
    """A version's id and its entry module imported from this package (today's code, not a frozen file's)."""

    protocol_id: str
    entry: ModuleType


@functools.cache
def newest() -> Installed:
    benchmark = installed_registry().benchmark(BENCHMARK)
    if benchmark is None:
        raise LookupError(f"{BENCHMARK} is not declared in this package")
    spec = max(benchmark.protocols, key=lambda protocol: protocol.version)
    root = __name__.split(".")[0]
    module = importlib.import_module(f"{root}.{spec.entry.removesuffix('.py').replace('/', '.')}")
    return Installed(spec.protocol_id, module)
