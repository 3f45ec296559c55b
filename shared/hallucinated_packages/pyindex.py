"""A static name index over one Python artifact: is `name` an attribute of `module` (or of a class)?

Why not griffe or jedi: griffe drops overload-only stub definitions and skips namespace folders
without `__init__.py`; jedi silently analyses the host's site-packages. This index reads only
the modules on the path of a query (lazily, from the archive), with `pyfacts` for what each
file binds. A name is *found* when a file binds it, `__all__` lists it, it is a submodule, an
in-tree star import or `dir()` loop provides it, or (for a class) the class, its bases or its
decorators define it. It is *missing* only when every way the module could bind it is read:

* the module's `.py` binds names nobody can read (a computed `globals()` write, a `__getattr__`
  that can return anything, a star import from elsewhere, a statement that does not parse):
  then only the package's own declaration decides: a `.pyi` stub in a package marked typed
  (PEP 561 `py.typed`, not partial), or a `__dir__` that returns `__all__`. Names such a hook
  handles by name (lazy or deprecated ones) stay unverified;
* the stub itself must be complete: no `__getattr__`, nothing unreadable, no foreign star import.

Classes follow the same rule: a class whose bases, metaclass, decorators, `__getattr__` or
import-time callers cannot be read may have any attribute. Attributes are looked up the same
way for a class and for an instance (`self.x = ...` in a method counts), and a module-level
value built by calling an in-tree class (`pytest.mark`, a `MarkGenerator()`) is an instance of
it. Everything else is *dynamic*, which the gate reports as unverified.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import sys
from dataclasses import dataclass, field

from .pyfacts import (
    ModuleFacts,
    decorator_effect,
    dir_declares_names,
    dotted,
    harmless_decorator,
    literal_strings,
    read_getattr,
    read_module_facts,
)
from .wheel_index import Archive, ArchiveError, strip_sdist_root

MAX_DEPTH = 12
_STANDARD_METACLASSES = frozenset({"ABCMeta", "abc.ABCMeta", "type", "EnumMeta", "enum.EnumMeta", "EnumType"})


@dataclass(frozen=True)
class Lookup:
    """Outcome of resolving one name: found / missing / dynamic (with why and what it is)."""

    kind: str  # "found" | "missing" | "dynamic"
    reason: str
    module: str | None = None  # set when the name is a module
    class_ref: tuple[str, str] | None = None  # (module, class name) when the name is an in-tree class
    value: bool = False  # bound to something that is neither module nor in-tree class
    instance_of: tuple[str, str] | None = None  # (module, class) when the value was built by that class
    function_ref: tuple[str, str] | None = None  # (module, function) when the name is an in-tree function


def found(reason: str, **kw: object) -> Lookup:
    return Lookup("found", reason, **kw)  # type: ignore[arg-type]


@dataclass
class ModuleInfo:
    """One module: what its `.py` and its `.pyi` bind, merged for finding, apart for deciding."""

    name: str
    is_package: bool
    source: ModuleFacts | None
    stub: ModuleFacts | None
    stub_governs: bool = False  # the stub is the package's declaration (py.typed) and is complete
    names: set[str] = field(default_factory=set)
    imports: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    classes: dict[str, list[ast.ClassDef]] = field(default_factory=dict)
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    instances: dict[str, str] = field(default_factory=dict)
    all_names: set[str] | None = None

    @property
    def files(self) -> list[ModuleFacts]:
        return [f for f in (self.source, self.stub) if f is not None]

    def merge(self) -> None:
        for facts in self.files:
            self.names |= facts.names
            for key, value in facts.imports.items():
                self.imports.setdefault(key, value)
            for key, node in facts.classes.items():
                self.classes.setdefault(key, []).append(node)
            for key, fn in facts.functions.items():
                self.functions.setdefault(key, fn)
            for key, built in facts.instances.items():
                self.instances.setdefault(key, built)
            if facts.all_names is not None:
                self.all_names = (self.all_names or set()) | facts.all_names


def stub_gaps(stub: ModuleFacts) -> list[str]:
    """Why a stub may not declare every name of its module."""
    gaps = list(stub.dynamic)
    if stub.getattr_fn is not None:
        gaps.append(f"{stub.name}.pyi declares __getattr__ (an incomplete stub)")
    return gaps


class ModuleTree:
    """Module layout of one artifact plus lazily parsed module infos."""

    def __init__(self, archive: Archive, *, sdist: bool = False) -> None:
        self.archive = archive
        self.sources: dict[str, list[str]] = {}
        self.compiled: set[str] = set()
        self.packages: set[str] = set()
        self.typed_markers: dict[str, str] = {}  # top-level package -> its py.typed member
        self._infos: dict[str, ModuleInfo | None] = {}
        self._typed: dict[str, bool] = {}
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
            if leaf == "py.typed" and len(parts) == 2:
                self.typed_markers[parts[0]] = member
            stem, dot, ext = leaf.partition(".")
            if not stem.isidentifier() or not all(p.isidentifier() for p in parts[:-1]):
                continue
            if ext in ("py", "pyi"):
                dotted_name = ".".join(parts[:-1]) if stem == "__init__" else ".".join([*parts[:-1], stem])
                self.sources.setdefault(dotted_name, []).append(member)
            elif dot and (ext.endswith("so") or ext.endswith("pyd")):
                self.compiled.add(".".join([*parts[:-1], stem]))

    def is_module(self, dotted_name: str) -> bool:
        return dotted_name in self.sources or dotted_name in self.compiled or dotted_name in self.packages

    def has_stub(self, dotted_name: str) -> bool:
        return any(m.endswith(".pyi") for m in self.sources.get(dotted_name, []))

    async def typed(self, dotted_name: str) -> bool:
        """Does the top-level package carry a PEP 561 `py.typed` marker that is not `partial`?"""
        top = dotted_name.split(".")[0]
        if top not in self._typed:
            member = self.typed_markers.get(top)
            marked = False
            if member is not None:
                try:
                    marked = "partial" not in (await self.archive.read(member)).decode("utf-8", "replace")
                except ArchiveError:
                    marked = False
            self._typed[top] = marked
        return self._typed[top]

    async def info(self, dotted_name: str) -> ModuleInfo | None:
        """Parsed names of a module; None when it has no Python source (namespace or compiled)."""
        if dotted_name in self._infos:
            return self._infos[dotted_name]
        members = self.sources.get(dotted_name)
        result: ModuleInfo | None = None
        if members:
            is_package = dotted_name in self.packages
            files: dict[bool, ModuleFacts] = {}
            for member in sorted(members):
                stub = member.endswith(".pyi")
                try:
                    text = (await self.archive.read(member)).decode("utf-8", errors="replace")
                except ArchiveError as exc:
                    unread = ModuleFacts(dotted_name, is_package, stub=stub)
                    unread.note(f"{member} could not be read ({exc.reason})")
                    files[stub] = unread
                    continue
                files[stub] = read_module_facts(text, member, dotted_name, is_package=is_package)
            result = ModuleInfo(dotted_name, is_package, files.get(False), files.get(True))
            result.merge()
            if result.stub is not None and not stub_gaps(result.stub):
                result.stub_governs = await self.typed(dotted_name)
        self._infos[dotted_name] = result
        return result

    # ------------------------------------------------------------------ module attributes
    async def lookup(self, module: str, name: str, depth: int = 0) -> Lookup:
        """Is `name` an attribute of `module`? Follows aliases, star imports and dir() loops within the tree."""
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
        source_pending: list[str] = []
        stub_pending: list[str] = []
        for facts in info.files:
            pending = stub_pending if facts.stub else source_pending
            result = await self._provided(facts, name, depth, pending)
            if result is not None:
                return result
        return self._decide(info, name, source_pending, stub_pending)

    async def _provided(self, facts: ModuleFacts, name: str, depth: int, pending: list[str]) -> Lookup | None:
        """Found through a star import or a dir() loop of this file; else why it might still exist."""
        for star in facts.star_imports:
            if star in self.sources:
                target = await self.info(star)
                if target is not None and not _exported_by_star(target, name):
                    continue
                result = await self.lookup(star, name, depth + 1)
                if result.kind == "found":
                    computed = target is not None and any(f.all_computed for f in target.files)
                    why = f" (bound there; {star}.__all__ is computed)" if computed else ""
                    return Lookup(result.kind, result.reason + why, result.module, result.class_ref, result.value,
                                  result.instance_of, result.function_ref)  # fmt: skip
                if result.kind == "dynamic":
                    pending.append(result.reason)
            elif star in self.compiled:
                pending.append(f"star import from compiled {star} (no stub)")
            else:
                pending.append(f"star import from {star} (outside this distribution)")
        for source in facts.dir_imports:
            target_module = _resolve_name(facts, source)
            if target_module is None or not self.is_module(target_module):
                pending.append(f"{facts.name} copies dir({source}) into its globals")
                continue
            result = await self.lookup(target_module, name, depth + 1)
            if result.kind == "found":
                return found(f"{name} copied into {facts.name} from dir({target_module}): {result.reason}", value=True)
            if result.kind == "dynamic":
                pending.append(result.reason)
        for prefix in facts.key_prefixes:
            if name.startswith(prefix):
                pending.append(f"{facts.name} writes globals() names starting with {prefix!r}")
        pending.extend(facts.dynamic)
        return None

    def _decide(self, info: ModuleInfo, name: str, source_pending: list[str], stub_pending: list[str]) -> Lookup:
        lazy: str | None = None
        source = info.source
        declared_by_dir = source is not None and dir_declares_names(source)
        if source is not None:
            reading = read_getattr(source)
            if reading is not None:
                if name in reading.literal:
                    lazy = f"{info.name}.__getattr__ handles {name!r} at run time (lazy or deprecated name)"
                elif reading.open is not None:
                    source_pending.append(reading.open)
        if info.stub is not None:
            stub_pending.extend(_stub_only_gaps(info.stub))
        if lazy is not None:
            return Lookup("dynamic", lazy)
        if stub_pending:
            return Lookup("dynamic", "; ".join(stub_pending))
        if source_pending:
            if info.stub_governs:
                return Lookup(
                    "missing",
                    f"{info.name}.pyi, the package's own stub (py.typed), declares no {name!r}; "
                    f"what its .py binds at run time is not read ({'; '.join(source_pending)})",
                )
            if declared_by_dir:
                return Lookup(
                    "missing",
                    f"{info.name}.__dir__ declares the module's names and {name!r} is not among them "
                    f"({'; '.join(source_pending)})",
                )
            return Lookup("dynamic", "; ".join(source_pending))
        return Lookup("missing", f"{info.name} binds no name {name!r}")

    async def _describe(self, info: ModuleInfo, name: str, depth: int) -> Lookup:
        where = f"{info.name}.{name}"
        if name in info.classes:
            return found(f"class {where}", class_ref=(info.name, name))
        if name in info.functions and name not in info.imports:
            return found(f"{where} is bound", value=True, function_ref=(info.name, name))
        built = info.instances.get(name)
        if built is not None and name not in info.imports:
            cls = await self._class_of(info, built, depth)
            if cls is not None:
                return found(f"{where} is an instance of {cls[0]}.{cls[1]}", value=True, instance_of=cls)
        target = info.imports.get(name)
        if target is None:
            return found(f"{where} is bound", value=True)
        tmod, tattr = target
        if tattr is None:
            if self.is_module(tmod):
                return found(f"{where} is module {tmod}", module=tmod)
            return found(f"{where} is imported module {tmod}", value=True)
        if self.is_module(f"{tmod}.{tattr}"):
            return found(f"{where} is module {tmod}.{tattr}", module=f"{tmod}.{tattr}")
        if self.is_module(tmod) and tmod != info.name:
            inner = await self.lookup(tmod, tattr, depth + 1)
            if inner.kind == "found":
                return inner
            # A bound import that static reading cannot follow still binds the name.
            return found(f"{where} imported from {tmod}", value=True)
        if tmod == info.name:
            return found(f"{where} is bound", value=True)
        return found(f"{where} imported from {tmod} (another distribution)", value=True)

    async def _class_of(self, info: ModuleInfo, built: str, depth: int) -> tuple[str, str] | None:
        """The in-tree class a dotted constructor name refers to, seen from `info`."""
        head, _, rest = built.partition(".")
        if not rest:
            if head in info.classes:
                return info.name, head
            target = info.imports.get(head)
            if target is not None and target[1] is not None and self.is_module(target[0]):
                where = await self.lookup(target[0], target[1], depth + 1)
                return where.class_ref
            return None
        target = info.imports.get(head)
        if target is None or target[1] is not None:
            return None
        module_path, cls = f"{target[0]}.{rest}".rsplit(".", 1)
        if not self.is_module(module_path):
            return None
        where = await self.lookup(module_path, cls, depth + 1)
        return where.class_ref

    # ------------------------------------------------------------------ class attributes
    async def class_member(self, module: str, cls: str, attr: str, depth: int = 0, *, instance: bool = False) -> Lookup:
        """Is `attr` an attribute of class `module.cls` (of its instances, with `instance`), here or on a base?"""
        if depth > MAX_DEPTH:
            return Lookup("dynamic", "class hierarchy too deep")
        info = await self.info(module)
        if info is None or cls not in info.classes:
            return Lookup("dynamic", f"class {module}.{cls} not readable")
        defs = info.classes[cls]
        files = {id(node): facts for facts in info.files for node in facts.classes.values()}
        members: set[str] = set()
        for node in defs:
            members |= class_members(node)
        for each in info.files:
            members |= each.class_extras.get(cls, set()) - {"*"}
        if attr in members:
            return found(f"{module}.{cls}.{attr} is defined")
        source_pending: list[str] = []
        stub_pending: list[str] = []
        for node in defs:
            facts = files.get(id(node))
            pending = stub_pending if facts is not None and facts.stub else source_pending
            if facts is not None:
                if "*" in facts.class_extras.get(cls, set()):
                    pending.append(f"{module} sets computed attributes on {cls}")
                pending.extend(facts.class_gaps.get(cls, []))
                pending.extend(f"{module}.{cls} is changed at import: {t}" for t in facts.class_touched.get(cls, []))
            hook = attribute_hook(node) if instance else None
            if hook is not None:
                pending.append(f"{module}.{cls}: {hook}")
            for kw in node.keywords:
                if kw.arg == "metaclass" and dotted(kw.value) not in _STANDARD_METACLASSES:
                    pending.append(f"{cls} has metaclass {dotted(kw.value) or '?'}")
            for decorator in node.decorator_list:
                result = await self._decorator(info, decorator, attr, depth)
                if result is not None and result.kind == "found":
                    return result
                if result is not None:
                    pending.append(result.reason)
            for base in node.bases:
                result = await self._base_member(info, base, attr, depth, instance)
                if result.kind == "found":
                    return result
                if result.kind == "dynamic":
                    pending.append(result.reason)
        if stub_pending:
            return Lookup("dynamic", "; ".join(stub_pending))
        has_stub_def = any(files.get(id(n)) is not None and files[id(n)].stub for n in defs)
        if source_pending and not (info.stub_governs and has_stub_def):
            return Lookup("dynamic", "; ".join(source_pending))
        return Lookup("missing", f"class {module}.{cls} and its bases define no {attr!r}")

    async def _decorator(self, info: ModuleInfo, decorator: ast.expr, attr: str, depth: int) -> Lookup | None:
        """None when the decorator adds nothing public; found/dynamic when it adds `attr` or may."""
        call = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = dotted(call)
        if name is None:
            return Lookup("dynamic", f"computed class decorator {ast.unparse(decorator)[:40]}")
        target = info.imports.get(name.split(".")[0])
        qualified = name if target is None else ".".join(filter(None, [target[0], target[1], *name.split(".")[1:]]))
        if harmless_decorator(name) or harmless_decorator(qualified):
            return None
        fn = await self._function(info, name, depth)
        if fn is None:
            return Lookup("dynamic", f"class decorator {name} is not readable here")
        added, unknown = decorator_effect(fn)
        if attr in added:
            return found(f"{attr} is set by decorator {name}")
        return Lookup("dynamic", unknown) if unknown else None

    async def _function(self, info: ModuleInfo, name: str, depth: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        if name in info.functions and name not in info.imports:
            return info.functions[name]
        head, _, rest = name.partition(".")
        target = info.imports.get(head)
        if target is None:
            return None
        module, attr = (target[0], target[1]) if target[1] is not None else (target[0], None)
        if attr is None:
            if not rest:
                return None
            module, attr = f"{module}.{rest}".rsplit(".", 1)
        elif rest:
            return None
        if not self.is_module(module):
            return None
        where = await self.lookup(module, attr, depth + 1)
        if where.function_ref is None:
            return None
        owner = await self.info(where.function_ref[0])
        return owner.functions.get(where.function_ref[1]) if owner is not None else None

    async def _base_member(self, info: ModuleInfo, base: ast.expr, attr: str, depth: int, instance: bool) -> Lookup:
        if isinstance(base, ast.Subscript):
            base = base.value
        name = dotted(base)
        if name is None:
            return Lookup("dynamic", f"computed base class {ast.unparse(base)}")
        head, _, rest = name.partition(".")
        if not rest:
            if head in info.classes and head not in info.imports:
                return await self.class_member(info.name, head, attr, depth + 1, instance=instance)
            target = info.imports.get(head)
            if target is not None and target[1] is not None:
                return await self._imported_class_member(target[0], target[1], attr, depth, instance)
            if head in ("Generic", "Protocol", "object"):
                return _runtime_member(object, attr, "object", instance)
            if head not in info.names and isinstance(getattr(builtins, head, None), type):
                return _runtime_member(getattr(builtins, head), attr, f"builtin {head}", instance)
            return Lookup("dynamic", f"base class {head} not resolvable")
        target = info.imports.get(head)
        if target is not None and target[1] is None:
            module_path, cls = f"{target[0]}.{rest}".rsplit(".", 1)
            return await self._imported_class_member(module_path, cls, attr, depth, instance)
        if target is not None and target[1] is not None:
            module_path, cls = f"{target[0]}.{target[1]}.{rest}".rsplit(".", 1)
            return await self._imported_class_member(module_path, cls, attr, depth, instance)
        return Lookup("dynamic", f"base class {name} not resolvable")

    async def _imported_class_member(self, module: str, cls: str, attr: str, depth: int, instance: bool) -> Lookup:
        if self.is_module(module):
            where = await self.lookup(module, cls, depth + 1)
            if where.class_ref is not None:
                return await self.class_member(*where.class_ref, attr, depth + 1, instance=instance)
            return Lookup("dynamic", f"base class {module}.{cls} not resolvable")
        top = module.split(".")[0]
        if module in ("typing", "typing_extensions") and cls in ("Generic", "Protocol", "NamedTuple", "TypedDict"):
            return (
                _runtime_member(object, attr, f"{module}.{cls}", instance)
                if cls in ("Generic", "Protocol")
                else Lookup("dynamic", f"base {module}.{cls} builds its members from the class body")
            )
        if top in sys.stdlib_module_names:
            try:
                runtime = getattr(importlib.import_module(module), cls)
            except Exception:  # a stdlib module that cannot import here (tkinter, ...)
                return Lookup("dynamic", f"stdlib base {module}.{cls} not importable")
            if isinstance(runtime, type):
                return _runtime_member(runtime, attr, f"stdlib {module}.{cls}", instance)
        return Lookup("dynamic", f"base class {module}.{cls} is from another distribution")


def _runtime_member(cls: type, attr: str, label: str, instance: bool) -> Lookup:
    if hasattr(cls, attr):
        return found(f"{attr} inherited from {label}")
    if instance and hasattr(cls, "__getattr__"):
        return Lookup("dynamic", f"{label} defines __getattr__")
    return Lookup("missing", f"{label} has no {attr!r}")


def _stub_only_gaps(stub: ModuleFacts) -> list[str]:
    """The parts of `stub_gaps` that `_provided` did not already report (it reports `dynamic`)."""
    return [g for g in stub_gaps(stub) if g not in stub.dynamic]


def _resolve_name(facts: ModuleFacts, name: str) -> str | None:
    """The module a dotted name in this file refers to (`_C._VariableFunctions` -> `torch._C._VariableFunctions`)."""
    head, _, rest = name.partition(".")
    target = facts.imports.get(head)
    if target is None:
        return None
    base = target[0] if target[1] is None else f"{target[0]}.{target[1]}"
    return f"{base}.{rest}" if rest else base


def _strip_wheel_data(member: str) -> str:
    parts = member.split("/")
    if parts[0].endswith(".data") and len(parts) > 2 and parts[1] in ("purelib", "platlib"):
        return "/".join(parts[2:])
    return member


def _exported_by_star(target: ModuleInfo, name: str) -> bool:
    if any(f.all_computed for f in target.files):
        return not name.startswith("_")
    if target.all_names is not None:
        return name in target.all_names
    return not name.startswith("_")


def attribute_hook(node: ast.ClassDef) -> str | None:
    """Why instances of the class may have attributes its body does not name (`__getattr__`), else None.

    A `__getattr__` that only returns items of the object (`self[name]`, pandas' column access)
    or falls back to the normal lookup gives data, not API: it does not make API names unknowable.
    """
    for stmt in node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name in (
            "__getattr__",
            "__getattribute__",
        ):
            if stmt.name == "__getattr__" and _returns_items_only(stmt):
                continue
            return f"{node.name} defines {stmt.name}"
    return None


def _returns_items_only(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    if len(fn.args.args) < 2:
        return False
    self_name, param = fn.args.args[0].arg, fn.args.args[1].arg
    returns = [n for n in ast.walk(fn) if isinstance(n, ast.Return)]
    if not returns:
        return False
    for ret in returns:
        value = ret.value
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and value.value.id == self_name:
            continue
        fallback = isinstance(value, ast.Call) and (dotted(value.func) or "").endswith("__getattribute__")
        if fallback and any(isinstance(a, ast.Name) and a.id == param for a in getattr(value, "args", [])):
            continue
        return False
    return True


def class_members(node: ast.ClassDef) -> set[str]:
    """Names a class body defines, plus attributes its methods set on `self`."""
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
                    names.update(literal_strings(stmt.value) or set())
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                names.add(stmt.target.id)
            elif isinstance(stmt, (ast.If, ast.Try, ast.TryStar, ast.With, ast.For)):
                for attr in ("body", "orelse", "finalbody"):
                    visit(getattr(stmt, attr, []) or [])
                for handler in getattr(stmt, "handlers", []) or []:
                    visit(handler.body)

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
