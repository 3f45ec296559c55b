"""A static name index over one Python artifact, built with `ast` from the members it needs.

Why not griffe or jedi: griffe drops overload-only stub definitions and skips namespace folders
without `__init__.py`; jedi silently analyses the host's site-packages. This index reads only
the modules on the path of a query (lazily, from the archive), merges `.py` with `.pyi`, follows
`__all__`, star imports and import aliases inside the distribution, and knows when it cannot
know: PEP 562 `__getattr__` loaders, `sys.modules`/`globals()` tricks, compiled modules without
stubs and star imports from elsewhere are *dynamic*, which the gate reports as unverified.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import re
import sys
from dataclasses import dataclass, field

from ..pyparse import parse_python
from .wheel_index import Archive, ArchiveError, strip_sdist_root

MAX_DEPTH = 12
_DYNAMIC_CALLS = frozenset({"import_module", "__import__", "getattr", "globals", "import_string", "lazy_import"})


@dataclass(frozen=True)
class Lookup:
    """Outcome of resolving one name: found / missing / dynamic (with why and what it is)."""

    kind: str  # "found" | "missing" | "dynamic"
    reason: str
    module: str | None = None  # set when the name is a module
    class_ref: tuple[str, str] | None = None  # (module, class name) when the name is an in-tree class
    value: bool = False  # bound to something that is neither module nor in-tree class


def found(reason: str, **kw: object) -> Lookup:
    return Lookup("found", reason, **kw)  # type: ignore[arg-type]


@dataclass
class ModuleInfo:
    """Names a module binds, as far as static reading can tell."""

    name: str
    is_package: bool
    names: set[str] = field(default_factory=set)
    imports: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    class_extras: dict[str, set[str]] = field(default_factory=dict)
    all_names: set[str] | None = None
    star_imports: list[str] = field(default_factory=list)
    getattr_fn: ast.FunctionDef | None = None
    containers: dict[str, ast.expr] = field(default_factory=dict)
    dynamic: list[str] = field(default_factory=list)


class ModuleTree:
    """Module layout of one artifact plus lazily parsed module infos."""

    def __init__(self, archive: Archive, *, sdist: bool = False) -> None:
        self.archive = archive
        self.sources: dict[str, list[str]] = {}
        self.compiled: set[str] = set()
        self.packages: set[str] = set()
        self._infos: dict[str, ModuleInfo | None] = {}
        for member in archive.members:
            path = strip_sdist_root(member) if sdist else _strip_wheel_data(member)
            if path is None:
                continue
            parts = path.split("/")
            if parts[0].endswith((".dist-info", ".egg-info", ".data", ".libs")):
                continue
            for depth in range(1, len(parts)):
                if all(p.isidentifier() for p in parts[:depth]):
                    self.packages.add(".".join(parts[:depth]))
            leaf = parts[-1]
            stem, dot, ext = leaf.partition(".")
            if not stem.isidentifier() or not all(p.isidentifier() for p in parts[:-1]):
                continue
            if ext in ("py", "pyi"):
                dotted = ".".join(parts[:-1]) if stem == "__init__" else ".".join([*parts[:-1], stem])
                self.sources.setdefault(dotted, []).append(member)
            elif dot and (ext.endswith("so") or ext.endswith("pyd")):
                self.compiled.add(".".join([*parts[:-1], stem]))

    def is_module(self, dotted: str) -> bool:
        return dotted in self.sources or dotted in self.compiled or dotted in self.packages

    def has_stub(self, dotted: str) -> bool:
        return any(m.endswith(".pyi") for m in self.sources.get(dotted, []))

    async def info(self, dotted: str) -> ModuleInfo | None:
        """Parsed names of a module; None when it has no Python source (namespace or compiled)."""
        if dotted in self._infos:
            return self._infos[dotted]
        members = self.sources.get(dotted)
        result: ModuleInfo | None = None
        if members:
            result = ModuleInfo(dotted, is_package=dotted in self.packages)
            for member in sorted(members):
                try:
                    text = (await self.archive.read(member)).decode("utf-8", errors="replace")
                    tree = _parse(text, member)
                except SyntaxError as exc:
                    result.dynamic.append(f"{member} does not parse ({exc.msg})")
                    continue
                except ArchiveError as exc:
                    result.dynamic.append(f"{member} could not be read ({exc.reason})")
                    continue
                _collect(result, tree.body, top=True)
        self._infos[dotted] = result
        return result

    # ------------------------------------------------------------------ queries
    async def lookup(self, module: str, name: str, depth: int = 0) -> Lookup:
        """Is `name` an attribute of `module`? Follows aliases and star imports within the tree."""
        if depth > MAX_DEPTH:
            return Lookup("dynamic", "import chain too deep")
        sub = f"{module}.{name}"
        info = await self.info(module)
        if info is None:
            if self.is_module(sub):
                return found(f"{sub} is a module", module=sub)
            if module in self.compiled:
                return Lookup("dynamic", f"{module} is compiled and ships no .pyi stub")
            return Lookup("missing", f"{module} is a namespace package without {name}")
        if name in info.names:
            return await self._describe(info, name, depth)
        if self.is_module(sub):
            return found(f"{sub} is a module", module=sub)
        if info.all_names is not None and name in info.all_names:
            return found(f"{name} is listed in {module}.__all__", value=True)
        pending: list[str] = []
        for star in info.star_imports:
            if star in self.sources:
                target = await self.info(star)
                if target is not None and not _exported_by_star(target, name):
                    continue
                result = await self.lookup(star, name, depth + 1)
                if result.kind != "missing":
                    return result
            elif star in self.compiled:
                pending.append(f"star import from compiled {star} (no stub)")
            else:
                pending.append(f"star import from {star} (outside this distribution)")
        pending.extend(info.dynamic)
        if info.getattr_fn is not None:
            verdict = _getattr_verdict(info, name)
            if verdict is not None:
                pending.append(verdict)
        if pending:
            return Lookup("dynamic", "; ".join(pending))
        return Lookup("missing", f"{module} binds no name {name!r}")

    async def _describe(self, info: ModuleInfo, name: str, depth: int) -> Lookup:
        where = f"{info.name}.{name}"
        if name in info.classes:
            return found(f"class {where}", class_ref=(info.name, name))
        target = info.imports.get(name)
        if target is None:
            return found(f"{where} is bound", value=True)
        tmod, tattr = target
        if tattr is None:
            if self.is_module(tmod):
                return found(f"{where} is module {tmod}", module=tmod)
            return found(f"{where} is imported module {tmod}", value=True)
        if self.is_module(tmod):
            inner = await self.lookup(tmod, tattr, depth + 1)
            if inner.kind == "found":
                return inner
            # A bound import that static reading cannot follow still binds the name.
            return found(f"{where} imported from {tmod}", value=True)
        return found(f"{where} imported from {tmod} (another distribution)", value=True)

    async def class_member(self, module: str, cls: str, attr: str, depth: int = 0) -> Lookup:
        """Is `attr` defined on class `module.cls` or an in-tree/builtin/stdlib base class?"""
        if depth > MAX_DEPTH:
            return Lookup("dynamic", "class hierarchy too deep")
        info = await self.info(module)
        if info is None or cls not in info.classes:
            return Lookup("dynamic", f"class {module}.{cls} not readable")
        node = info.classes[cls]
        members = _class_members(node) | info.class_extras.get(cls, set())
        if attr in members:
            return found(f"{module}.{cls}.{attr} is defined")
        pending: list[str] = []
        if "*" in info.class_extras.get(cls, set()):
            pending.append(f"{module} sets computed attributes on {cls}")
        for kw in node.keywords:
            if kw.arg == "metaclass" and _dotted(kw.value) not in ("ABCMeta", "abc.ABCMeta", "type", "EnumMeta"):
                pending.append(f"{cls} has metaclass {_dotted(kw.value) or '?'}")
        for base in node.bases:
            result = await self._base_member(info, base, attr, depth)
            if result.kind == "found":
                return result
            if result.kind == "dynamic":
                pending.append(result.reason)
        if pending:
            return Lookup("dynamic", "; ".join(pending))
        return Lookup("missing", f"class {module}.{cls} and its bases define no {attr!r}")

    async def _base_member(self, info: ModuleInfo, base: ast.expr, attr: str, depth: int) -> Lookup:
        if isinstance(base, ast.Subscript):
            base = base.value
        dotted = _dotted(base)
        if dotted is None:
            return Lookup("dynamic", f"computed base class {ast.unparse(base)}")
        head, _, rest = dotted.partition(".")
        if not rest:
            if head in info.classes:
                return await self.class_member(info.name, head, attr, depth + 1)
            target = info.imports.get(head)
            if target is not None and target[1] is not None:
                return await self._imported_class_member(target[0], target[1], attr, depth)
            if head not in info.names and isinstance(getattr(builtins, head, None), type):
                return _runtime_member(getattr(builtins, head), attr, f"builtin {head}")
            return Lookup("dynamic", f"base class {head} not resolvable")
        target = info.imports.get(head)
        if target is not None and target[1] is None:
            module_path, cls = f"{target[0]}.{rest}".rsplit(".", 1)
            return await self._imported_class_member(module_path, cls, attr, depth)
        if target is not None and target[1] is not None:
            module_path, cls = f"{target[0]}.{target[1]}.{rest}".rsplit(".", 1)
            return await self._imported_class_member(module_path, cls, attr, depth)
        return Lookup("dynamic", f"base class {dotted} not resolvable")

    async def _imported_class_member(self, module: str, cls: str, attr: str, depth: int) -> Lookup:
        if self.is_module(module):
            where = await self.lookup(module, cls, depth + 1)
            if where.class_ref is not None:
                return await self.class_member(*where.class_ref, attr, depth + 1)
            return Lookup("dynamic", f"base class {module}.{cls} not resolvable")
        top = module.split(".")[0]
        if top in sys.stdlib_module_names:
            try:
                runtime = getattr(importlib.import_module(module), cls)
            except Exception:  # a stdlib module that cannot import here (tkinter, ...)
                return Lookup("dynamic", f"stdlib base {module}.{cls} not importable")
            if isinstance(runtime, type):
                return _runtime_member(runtime, attr, f"stdlib {module}.{cls}")
        return Lookup("dynamic", f"base class {module}.{cls} is from another distribution")


def _runtime_member(cls: type, attr: str, label: str) -> Lookup:
    if hasattr(cls, attr):
        return found(f"{attr} inherited from {label}")
    return Lookup("missing", f"{label} has no {attr!r}")


# ---------------------------------------------------------------------- ast collection
_PEP695_ALIAS = re.compile(r"^(\s*)type\s+(\w+)\s*(\[[^=]*\])?\s*=", re.MULTILINE)
_PEP695_PARAMS = re.compile(r"^(\s*(?:async\s+)?(?:def|class)\s+\w+)\[[^\]]*\]", re.MULTILINE)


def _parse(text: str, filename: str) -> ast.Module:
    """Parse with this interpreter; on failure retry with PEP 695 syntax (3.12+ stubs) downgraded.

    Newer stubs (numpy 2.x) use `type X = ...` and `def f[T]()`, which 3.11 cannot parse; the
    names they bind are unchanged by dropping the type-parameter syntax.
    """
    try:
        return parse_python(text, filename=filename)
    except SyntaxError:
        downgraded = _PEP695_PARAMS.sub(r"\1", _PEP695_ALIAS.sub(r"\1\2 =", text))
        if downgraded == text:
            raise
        return parse_python(downgraded, filename=filename)


def _strip_wheel_data(member: str) -> str:
    parts = member.split("/")
    if parts[0].endswith(".data") and len(parts) > 2 and parts[1] in ("purelib", "platlib"):
        return "/".join(parts[2:])
    return member


def _resolve_relative(info: ModuleInfo, module: str | None, level: int) -> str:
    if level == 0:
        return module or ""
    base = info.name.split(".")
    if not info.is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, *([module] if module else [])])


def _collect(info: ModuleInfo, body: list[ast.stmt], *, top: bool) -> None:
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            info.names.add(stmt.name)
            if stmt.name == "__getattr__" and isinstance(stmt, ast.FunctionDef):
                info.getattr_fn = stmt
        elif isinstance(stmt, ast.ClassDef):
            info.names.add(stmt.name)
            info.classes[stmt.name] = stmt
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    info.names.add(alias.asname)
                    info.imports[alias.asname] = (alias.name, None)
                else:
                    head = alias.name.split(".")[0]
                    info.names.add(head)
                    info.imports.setdefault(head, (head, None))
        elif isinstance(stmt, ast.ImportFrom):
            source = _resolve_relative(info, stmt.module, stmt.level)
            for alias in stmt.names:
                if alias.name == "*":
                    info.star_imports.append(source)
                    continue
                bound = alias.asname or alias.name
                info.names.add(bound)
                info.imports[bound] = (source, alias.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            _collect_assignment(info, stmt)
        elif isinstance(stmt, (ast.If, ast.Try, ast.TryStar, ast.With, ast.AsyncWith, ast.For, ast.While)):
            if isinstance(stmt, (ast.For,)):
                _bind_targets(info, stmt.target)
            for block in _blocks(stmt):
                _collect(info, block, top=top)
        elif isinstance(stmt, ast.Expr):
            _collect_call(info, stmt.value)
        elif isinstance(stmt, ast.Delete):
            continue
    _scan_dynamic(info, body)


def _blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    blocks: list[list[ast.stmt]] = []
    for attr in ("body", "orelse", "finalbody"):
        value = getattr(stmt, attr, None)
        if isinstance(value, list):
            blocks.append(value)
    for handler in getattr(stmt, "handlers", []) or []:
        blocks.append(handler.body)
    return blocks


def _bind_targets(info: ModuleInfo, target: ast.expr) -> None:
    if isinstance(target, ast.Name):
        info.names.add(target.id)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            _bind_targets(info, element)
    elif isinstance(target, ast.Starred):
        _bind_targets(info, target.value)


def _collect_assignment(info: ModuleInfo, stmt: ast.Assign | ast.AnnAssign | ast.AugAssign) -> None:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    value = stmt.value
    for target in targets:
        _bind_targets(info, target)
        if isinstance(target, ast.Name) and value is not None:
            if target.id == "__all__":
                names = _literal_strings(value)
                if isinstance(stmt, ast.AugAssign) and info.all_names is not None:
                    info.all_names |= names
                else:
                    info.all_names = names
            else:
                info.containers[target.id] = value
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            info.class_extras.setdefault(target.value.id, set()).add(target.attr)
        elif isinstance(target, ast.Subscript):
            holder = _dotted(target.value)
            if holder in ("sys.modules", "globals()"):
                info.dynamic.append(f"{info.name} writes {holder}")


def _collect_call(info: ModuleInfo, value: ast.expr) -> None:
    if not isinstance(value, ast.Call):
        return
    func = _dotted(value.func)
    if func in ("__all__.extend", "__all__.append") and info.all_names is not None:
        for arg in value.args:
            info.all_names |= _literal_strings(arg)
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                info.all_names.add(arg.value)
    elif func in ("globals().update", "vars().update", "locals().update"):
        info.dynamic.append(f"{info.name} calls {func}")
    elif func == "setattr" and value.args:
        target = _dotted(value.args[0])
        if target is not None and target.startswith("sys.modules"):
            info.dynamic.append(f"{info.name} sets attributes on sys.modules entries")
        elif isinstance(value.args[0], ast.Name) and len(value.args) > 1:
            name = value.args[1]
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                info.class_extras.setdefault(value.args[0].id, set()).add(name.value)
            else:
                info.class_extras.setdefault(value.args[0].id, set()).add("*")


def _scan_dynamic(info: ModuleInfo, body: list[ast.stmt]) -> None:
    """Module-level loops that write `globals()[...]` or `sys.modules[...]` (outside functions)."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
                holder = _dotted(node.value)
                if holder in ("sys.modules", "globals()", "vars()", "locals()"):
                    message = f"{info.name} writes {holder}"
                    if message not in info.dynamic:
                        info.dynamic.append(message)


def _literal_strings(value: ast.expr) -> set[str]:
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        return {e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    if isinstance(value, ast.BinOp):
        return _literal_strings(value.left) | _literal_strings(value.right)
    return set()


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else None
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        inner = _dotted(node.func)
        return f"{inner}()" if inner else None
    return None


def _exported_by_star(target: ModuleInfo, name: str) -> bool:
    if target.all_names is not None:
        return name in target.all_names
    return not name.startswith("_")


def _class_members(node: ast.ClassDef) -> set[str]:
    names: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(stmt.name)
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    for leaf in ast.walk(target):
                        if isinstance(leaf, ast.Name):
                            names.add(leaf.id)
                if any(isinstance(t, ast.Name) and t.id == "__slots__" for t in stmt.targets):
                    names.update(_literal_strings(stmt.value))
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                names.add(stmt.target.id)
            elif isinstance(stmt, (ast.If, ast.Try, ast.TryStar, ast.With, ast.For)):
                for block in _blocks(stmt):
                    visit(block)

    visit(node.body)
    # Instance attributes set in methods (`self.x = ...`): accessible on instances.
    for stmt in node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.args.args:
            self_name = stmt.args.args[0].arg
            for sub in ast.walk(stmt):
                if (
                    isinstance(sub, ast.Attribute)
                    and isinstance(sub.ctx, ast.Store)
                    and isinstance(sub.value, ast.Name)
                    and sub.value.id == self_name
                ):
                    names.add(sub.attr)
    return names


def _getattr_verdict(info: ModuleInfo, name: str) -> str | None:
    """PEP 562: None when `__getattr__` provably cannot produce `name`, else why it might."""
    fn = info.getattr_fn
    assert fn is not None
    literals: set[str] = set()
    raises: set[int] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Raise):
            raises.update(id(n) for n in ast.walk(node))
    for node in ast.walk(fn):
        if id(node) in raises:
            continue
        if isinstance(node, ast.Call):
            called = _dotted(node.func) or ""
            if called.split(".")[-1] in _DYNAMIC_CALLS or called.startswith("sys.modules"):
                return f"{info.name}.__getattr__ loads names dynamically ({called})"
        if isinstance(node, ast.Subscript) and (_dotted(node.value) or "").startswith(("sys.modules", "globals()")):
            return f"{info.name}.__getattr__ reads {_dotted(node.value)}"
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            literals.add(node.value)
        if isinstance(node, ast.Name) and node.id in info.containers:
            for inner in ast.walk(info.containers[node.id]):
                if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                    literals.add(inner.value)
    if name in literals:
        return f"{info.name}.__getattr__ handles {name!r} at run time (lazy or deprecated name)"
    return None
