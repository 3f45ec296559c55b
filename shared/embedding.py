"""Load modules from source text held in memory, under a package name chosen by the caller.

Task files carry their core modules as source strings. Both the task file (on Kaggle, where
hallubench is not installed) and `hallubench rescore` (where a newer hallubench is) load
those strings with this finder, under a package name of their own, so a frozen scorer never
mixes with the installed one. Embedded modules import each other with relative imports only,
which makes the package name free. This file is copied verbatim into every task file.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Mapping, Sequence


class EmbeddedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """A meta-path finder serving `sources` (paths like `maze/render.py`) as package `package`."""

    def __init__(self, package: str, sources: Mapping[str, str]) -> None:
        self.package = package
        self._sources: dict[str, tuple[str, str, bool]] = {}
        for path, text in sources.items():
            parts = path[: -len(".py")].split("/")
            is_package = parts[-1] == "__init__"
            if is_package:
                parts = parts[:-1]
            name = ".".join([package, *parts])
            self._sources[name] = (path, text, is_package)
            for depth in range(len(parts)):
                parent = ".".join([package, *parts[:depth]])
                self._sources.setdefault(parent, (f"{'/'.join(parts[:depth])}/__init__.py", "", True))

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        entry = self._sources.get(fullname)
        if entry is None:
            return None
        spec = importlib.machinery.ModuleSpec(fullname, self, is_package=entry[2])
        spec.has_location = False
        return spec

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        path, text, _ = self._sources[module.__name__]
        code = compile(text, f"<{self.package}/{path}>", "exec", dont_inherit=True)
        exec(code, module.__dict__)

    def get_source(self, fullname: str) -> str | None:
        """The embedded source of `fullname` (the InspectLoader protocol), e.g. to copy it into a subprocess."""
        entry = self._sources.get(fullname)
        return None if entry is None else entry[1]

    def install(self) -> None:
        """Put this finder first on sys.meta_path (idempotent)."""
        if self not in sys.meta_path:
            sys.meta_path.insert(0, self)

    def uninstall(self) -> None:
        """Remove the finder and every module it loaded."""
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        for name in list(sys.modules):
            if name == self.package or name.startswith(self.package + "."):
                del sys.modules[name]

    def load(self, relative_name: str) -> types.ModuleType:
        """Import `package.relative_name` through this finder."""
        self.install()
        return importlib.import_module(f"{self.package}.{relative_name}")
