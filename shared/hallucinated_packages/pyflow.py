"""Following a `Use` into the package: what type does each step give, and does the used name exist on it?

A use's path (`("read_csv", "()", "append")`) is walked in the published artifact the gate
already reads: a module attribute is looked up in the index (`pyindex`); a call gives the
return annotation of the package's own function or method (its `.pyi` first, then its `.py`,
then a stub distribution, `stubs`); `:` is an instance of the class named; `enter` is what
`__enter__` returns (or the item of a `@contextmanager` iterator); `[]` an item of an annotated
iterable. Unions are followed member by member: a name is found when some member has it and
missing only when every member is read and none has it. The used name is then decided on the
receiver's class in the package's own files, and a missing one is looked for in older
releases (`removed-api`, naming the last release that had it). Where no step can say what the
receiver is, the verdict is `unverified` with the reason "receiver type unknown", so the
checker counts the use as undecided instead of dropping it. Depth is bounded; nothing runs.
Embedded: stdlib + httpx.
"""

from __future__ import annotations

import ast
import builtins
import copy
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .distmap import DistCandidate
from .evidence import Evidence, utc_now
from .pyfacts import dotted
from .pyindex import Lookup, ModuleInfo, ModuleTree
from .pysource import parse_source
from .pysymbols import SymbolVerdict, older_series, open_release, present_in_older
from .references import AWAIT, CALL, ELEMENT, ENTER, INSTANCE
from .registry import RegistryClient
from .stubs import stub_tree
from .wheel_index import ArchiveError

RECEIVER_UNKNOWN = "receiver type unknown"
ON_MISSING = "used on what a missing name returns"  # the missing name is the hallucination; not a use apart
MAX_DEPTH = 8
MAX_UNION = 4
_SEQUENCES = frozenset(
    {
        "list", "List", "Sequence", "MutableSequence", "Iterable", "Iterator", "Generator", "set", "Set",
        "frozenset", "FrozenSet", "Collection", "AsyncIterator", "AsyncIterable", "AsyncGenerator", "tuple",
        "Tuple", "deque", "KeysView", "ValuesView",
    }
)  # fmt: skip
_MAPPINGS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "defaultdict", "OrderedDict"})
_AWAITABLES = frozenset({"Awaitable", "Coroutine"})
_TRANSPARENT = frozenset({"Optional", "Annotated", "Final", "ClassVar", "TypeGuard", "Required", "NotRequired"})
_UNKNOWN_NAMES = frozenset({"Any", "object", "type", "TypeVar", "Incomplete"})  # any class: no member is sure
_PROPERTIES = frozenset({"property", "cached_property", "functools.cached_property", "cache_readonly"})


@dataclass(frozen=True)
class Kind:
    """One possible type of a value: module, class, instance, function, method, builtin, container or unknown."""

    kind: str  # "module" | "class" | "instance" | "function" | "method" | "builtin" | "container" | "unknown"
    # | "absent" (reached through a name the module does not have)
    module: str = ""
    name: str = ""  # class, function or builtin type name; for "unknown", why
    member: str = ""  # method name (kind "method")
    element: tuple[Kind, ...] = ()  # items of a container

    def describe(self) -> str:
        if self.kind == "method":
            return f"{self.module}.{self.name}.{self.member}"
        if self.kind in ("class", "instance", "function"):
            return f"{self.module}.{self.name}"
        return self.name or self.module or self.kind


def _unknown(why: str) -> Kind:
    return Kind("unknown", name=why)


class Resolver:
    """Types of a use's steps within one artifact (plus, for annotations it lacks, a stub tree)."""

    def __init__(self, tree: ModuleTree, stubs: Callable[[], Awaitable[ModuleTree | None]] | None = None) -> None:
        self.tree = tree
        self._load_stubs = stubs
        self._stubs: list[ModuleTree | None] = []
        self._parsed: dict[str, list[ast.stmt]] = {}

    async def stubs(self) -> ModuleTree | None:
        """The stub distribution's tree, fetched the first time the package's own files leave a type open."""
        if not self._stubs:
            self._stubs.append(await self._load_stubs() if self._load_stubs is not None else None)
        return self._stubs[0]

    # ---------------------------------------------------------------- walking a path
    async def receivers(self, module: str, path: Sequence[str]) -> list[Kind]:
        """What the value before the last step of `path` may be."""
        kinds = [Kind("module", module)]
        for step in path[:-1]:
            following: list[Kind] = []
            for kind in kinds:
                following.extend(await self.step(kind, step, 0))
            present = [k for k in following if k.kind != "absent"]  # a union member without the name drops out
            kinds = _dedupe(present or following)[:MAX_UNION] or [_unknown(f"nothing follows {step}")]
        return kinds

    async def step(self, kind: Kind, step: str, depth: int) -> list[Kind]:
        if depth > MAX_DEPTH:
            return [_unknown("type chain too deep")]
        if kind.kind in ("unknown", "absent"):
            return [kind]
        if kind.kind == "container":
            if step in (ELEMENT, ENTER):
                return list(kind.element) or [_unknown("items of an unannotated container")]
            return [_unknown(f"{step} on a builtin container")]
        if kind.kind == "builtin":
            return [_unknown(f"{step} on builtin {kind.name}")]
        if step == AWAIT:
            return [kind]
        if step == CALL:
            return await self._call(kind, depth)
        if step == INSTANCE:
            if kind.kind == "class":
                return [Kind("instance", kind.module, kind.name)]
            return [_unknown(f"annotation names {kind.describe()}, not a class")]
        if step == ENTER:
            if kind.kind != "instance":
                return [_unknown(f"with on {kind.describe()}")]
            entered = await self._method_returns(kind, "__enter__", depth)
            entered = entered or await self._method_returns(kind, "__aenter__", depth)  # `async with`
            return entered or [_unknown(f"{kind.describe()}.__enter__ has no readable return type")]
        if step == ELEMENT:
            if kind.kind != "instance":
                return [_unknown(f"iterating {kind.describe()}")]
            items = await self._method_returns(kind, "__iter__", depth)
            out: list[Kind] = []
            for item in items:
                out.extend(await self.step(item, ELEMENT, depth + 1))
            return out or [_unknown(f"{kind.describe()}.__iter__ has no readable item type")]
        return await self._attribute(kind, step, depth)

    async def _attribute(self, kind: Kind, attr: str, depth: int) -> list[Kind]:
        if kind.kind == "module":
            found = await self._module_attribute(kind.module, attr)
            if found.kind == "missing":
                return [Kind("absent", name=f"{kind.module}.{attr}: {found.reason}")]
            if found.kind != "found":
                return [_unknown(f"{kind.module}.{attr}: {found.reason}")]
            if found.module is not None:
                return [Kind("module", found.module)]
            if found.class_ref is not None:
                return [Kind("class", *found.class_ref)]
            if found.function_ref is not None:
                return [Kind("function", *found.function_ref)]
            if found.instance_of is not None:
                return [Kind("instance", *found.instance_of)]
            declared = await self._module_variable(kind.module, attr, depth)
            if declared:
                return declared
            return [_unknown(f"{kind.module}.{attr} is a value of no declared type")]
        if kind.kind in ("class", "instance"):
            return await self._member_type(kind, attr, depth)
        return [_unknown(f".{attr} on {kind.describe()}")]

    async def _module_variable(self, module: str, name: str, depth: int) -> list[Kind] | None:
        """The annotation of a module-level variable (`request: Request = LocalProxy(...)`), through imports."""
        if depth > MAX_DEPTH:
            return None
        info = await self.tree.info(module)
        if info is None:
            return None
        target = info.imports.get(name)
        if target is not None:
            if target[1] is not None and self.tree.is_module(target[0]):
                return await self._module_variable(target[0], target[1], depth + 1)
            return None
        for member in sorted(self.tree.sources.get(module, []), key=lambda m: not m.endswith(".pyi")):
            for statement in await self._top_level(member):
                if (
                    isinstance(statement, ast.AnnAssign)
                    and isinstance(statement.target, ast.Name)
                    and statement.target.id == name
                ):
                    return await self.annotation(self.tree, info, statement.annotation, None, depth + 1)
        return None

    async def _top_level(self, member: str, tree: ModuleTree | None = None) -> list[ast.stmt]:
        """A module file's statements at module level (and inside its top-level `if` blocks)."""
        tree = tree or self.tree
        key = f"{id(tree)}:{member}"
        if key not in self._parsed:
            try:
                text = (await tree.archive.read(member)).decode("utf-8", "replace")
                body = parse_source(text, member).module.body
            except ArchiveError:
                body = []
            flat: list[ast.stmt] = []
            for statement in body:
                flat.append(statement)
                if isinstance(statement, ast.If):
                    flat.extend([*statement.body, *statement.orelse])
            self._parsed[key] = flat
        return self._parsed[key]

    async def _module_attribute(self, module: str, attr: str) -> Lookup:
        """The index's lookup; for a name it finds only in `__all__`, what the module's star imports bind."""
        found = await self.tree.lookup(module, attr)
        if found.kind != "found" or found.module or found.class_ref or found.function_ref or found.instance_of:
            return found
        info = await self.tree.info(module)
        for facts in info.files if info is not None else []:
            for star in facts.star_imports:
                if star != module and self.tree.is_module(star):
                    inner = await self.tree.lookup(star, attr)
                    if inner.kind == "found" and (inner.class_ref or inner.function_ref or inner.instance_of):
                        return inner
        return found

    async def _call(self, kind: Kind, depth: int) -> list[Kind]:
        if kind.kind == "class":
            return [Kind("instance", kind.module, kind.name)]
        if kind.kind == "function":
            for tree, info, fn in await self._function_defs(kind.module, kind.name):
                if fn.returns is not None:
                    return await self.annotation(tree, info, fn.returns, None, depth + 1)
            return [_unknown(f"{kind.describe()} has no return annotation (package or stubs)")]
        if kind.kind == "method":
            owner = Kind("instance", kind.module, kind.name)
            returned = await self._method_returns(owner, kind.member, depth)
            return returned or [_unknown(f"{kind.describe()} has no return annotation (package or stubs)")]
        if kind.kind == "instance":
            returned = await self._method_returns(kind, "__call__", depth)
            return returned or [_unknown(f"calling {kind.describe()}")]
        return [_unknown(f"calling {kind.describe()}")]

    # ---------------------------------------------------------------- reading definitions
    async def _infos(self, module: str, *, stubs: bool) -> list[tuple[ModuleTree, ModuleInfo]]:
        out: list[tuple[ModuleTree, ModuleInfo]] = []
        for tree in (self.tree, await self.stubs() if stubs else None):
            if tree is not None:
                info = await tree.info(module)
                if info is not None:
                    out.append((tree, info))
        return out

    async def _function_defs(
        self, module: str, name: str
    ) -> list[tuple[ModuleTree, ModuleInfo, ast.FunctionDef | ast.AsyncFunctionDef]]:
        """Definitions of a module function: the package's `.pyi`, its `.py`, then the stub distribution's."""
        out: list[tuple[ModuleTree, ModuleInfo, ast.FunctionDef | ast.AsyncFunctionDef]] = []
        for stubs in (False, True):
            out.clear()
            for tree, info in await self._infos(module, stubs=stubs):
                members = sorted(tree.sources.get(module, []), key=lambda m: not m.endswith(".pyi"))
                for member in members:  # every definition: overloads, and versions under `if`
                    found = [
                        statement
                        for statement in await self._top_level(member, tree)
                        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name == name
                    ]
                    if found:
                        out.append((tree, info, merged_overloads(found)))
            if any(fn.returns is not None for _, _, fn in out):
                break
        return out

    async def _class_defs(
        self, module: str, cls: str, *, stubs: bool
    ) -> list[tuple[ModuleTree, ModuleInfo, ast.ClassDef]]:
        out: list[tuple[ModuleTree, ModuleInfo, ast.ClassDef]] = []
        for tree, info in await self._infos(module, stubs=stubs):
            for node in info.classes.get(cls, []):
                out.append((tree, info, node))
        return out

    async def _member_def(
        self, module: str, cls: str, attr: str, depth: int
    ) -> tuple[ModuleTree, ModuleInfo, ast.stmt, tuple[str, str]] | None:
        """The statement defining `attr` on the class or its bases: the package's own annotated one, else the stubs'."""
        own = await self._member_def_in(module, cls, attr, depth, stubs=False)
        if own is not None and _annotated(own[2]):
            return own
        if own is None and (await self.tree.class_member(module, cls, attr, instance=True)).kind == "missing":
            return None  # the package's class is read completely without it: no stub can add it
        stubbed = await self._member_def_in(module, cls, attr, depth, stubs=True)
        return stubbed if stubbed is not None and _annotated(stubbed[2]) else own or stubbed

    async def _member_def_in(
        self, module: str, cls: str, attr: str, depth: int, *, stubs: bool
    ) -> tuple[ModuleTree, ModuleInfo, ast.stmt, tuple[str, str]] | None:
        if depth > MAX_DEPTH:
            return None
        unannotated: tuple[ModuleTree, ModuleInfo, ast.stmt, tuple[str, str]] | None = None
        defs = await self._class_defs(module, cls, stubs=stubs)
        for tree, info, node in defs:
            methods = [
                statement
                for statement in node.body
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name == attr
            ]
            if any(method.returns is not None for method in methods):
                return tree, info, merged_overloads(methods), (module, cls)
            if methods:
                unannotated = unannotated or (tree, info, methods[-1], (module, cls))
            for statement in node.body:
                if (
                    isinstance(statement, ast.AnnAssign)
                    and isinstance(statement.target, ast.Name)
                    and statement.target.id == attr
                ):
                    return tree, info, statement, (module, cls)
        for tree, info, node in defs:
            for base in node.bases:
                name = dotted(base.value if isinstance(base, ast.Subscript) else base)
                if name is None:
                    continue
                where = await tree._class_of(info, name, depth)
                if where is None:
                    continue
                inherited = await self._member_def_in(*where, attr, depth + 1, stubs=stubs)
                if inherited is not None and (_annotated(inherited[2]) or unannotated is None):
                    return inherited
        return unannotated

    async def _member_type(self, kind: Kind, attr: str, depth: int) -> list[Kind]:
        found = await self._member_def_in(kind.module, kind.name, attr, depth, stubs=False)
        if found is None or not _annotated(found[2]):
            exists = await self.tree.class_member(kind.module, kind.name, attr, instance=kind.kind == "instance")
            if exists.kind == "missing":  # read completely without it: no stub can give it a type
                return [Kind("absent", name=f"{kind.describe()}.{attr}: {exists.reason}")]
            found = await self._member_def(kind.module, kind.name, attr, depth)
        if found is None:
            return [_unknown(f"{kind.describe()}.{attr} has no declaration with a type")]
        tree, info, statement, owner = found
        if isinstance(statement, ast.AnnAssign):
            return await self.annotation(tree, info, statement.annotation, kind, depth + 1)
        assert isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
        decorators = {dotted(d) for d in statement.decorator_list}
        if decorators & _PROPERTIES:
            if statement.returns is None:
                return [_unknown(f"property {kind.describe()}.{attr} has no return annotation")]
            return await self.annotation(tree, info, statement.returns, kind, depth + 1)
        if "classmethod" in decorators or "staticmethod" in decorators or kind.kind == "instance":
            return (
                [Kind("method", owner[0], owner[1], attr)]
                if kind.kind == "instance"
                else [Kind("method", kind.module, kind.name, attr)]
            )
        return [Kind("method", kind.module, kind.name, attr)]

    async def _method_returns(self, owner: Kind, method: str, depth: int) -> list[Kind]:
        found = await self._member_def(owner.module, owner.name, method, depth)
        if found is None:
            return []
        tree, info, statement, _ = found
        if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return []
        if statement.returns is None:
            if method in ("__enter__", "__aenter__") and _returns_self(statement):
                return [owner]
            return []
        if _returns_own_type(statement):
            return [owner]
        return await self.annotation(tree, info, statement.returns, owner, depth + 1)

    # ---------------------------------------------------------------- annotations
    async def annotation(
        self, tree: ModuleTree, info: ModuleInfo, node: ast.expr, owner: Kind | None, depth: int
    ) -> list[Kind]:
        """The types an annotation written in `info` names (None dropped from unions)."""
        if depth > MAX_DEPTH:
            return [_unknown("annotation too deep")]
        if isinstance(node, ast.Constant):
            if node.value is None:
                return []
            if isinstance(node.value, str):
                try:
                    parsed = ast.parse(node.value, mode="eval").body
                except SyntaxError:
                    return [_unknown(f"unreadable annotation {node.value!r}")]
                return await self.annotation(tree, info, parsed, owner, depth + 1)
            return [_unknown("literal annotation")]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            left = await self.annotation(tree, info, node.left, owner, depth + 1)
            right = await self.annotation(tree, info, node.right, owner, depth + 1)
            return _dedupe([*left, *right])
        if isinstance(node, ast.Subscript):
            return await self._generic(tree, info, node, owner, depth)
        name = dotted(node)
        if name is None:
            return [_unknown(f"annotation {ast.unparse(node)[:40]}")]
        last = name.rsplit(".", 1)[-1]
        if last == "Self" and owner is not None:
            return [Kind("instance", owner.module, owner.name)]
        if last in _UNKNOWN_NAMES:
            return [_unknown(f"annotated {last}")]
        if "." not in name and name not in info.names:
            runtime = getattr(builtins, name, None)
            if isinstance(runtime, type):
                return [Kind("builtin", name=name)]
            return [_unknown(f"annotation {name} not bound in {info.name}")]
        where = await tree._class_of(info, name, depth)
        if where is not None:
            return [Kind("instance", *where)]
        target = info.imports.get(name.split(".")[0])
        if target is not None and not tree.is_module(target[0].split(".")[0]):
            return [_unknown(f"{name} is a type from {target[0]} (another distribution)")]
        alias = await self._alias(tree, info, name, depth)
        if alias is not None:
            return await self.annotation(tree, alias[0], alias[1], owner, depth + 1)
        return [_unknown(f"annotation {name} is not a class the index can read")]

    async def _alias(
        self, tree: ModuleTree, info: ModuleInfo, name: str, depth: int
    ) -> tuple[ModuleInfo, ast.expr] | None:
        """What a type alias stands for (`Alias = Union[...]`, `Alias: TypeAlias = ...`, `type Alias = ...`)."""
        if depth > MAX_DEPTH or "." in name:
            return None
        target = info.imports.get(name)
        if target is not None:
            if target[1] is None or not tree.is_module(target[0]):
                return None
            imported = await tree.info(target[0])
            return await self._alias(tree, imported, target[1], depth + 1) if imported is not None else None
        for member in sorted(tree.sources.get(info.name, []), key=lambda m: not m.endswith(".pyi")):
            for statement in await self._top_level(member, tree):
                if isinstance(statement, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == name for t in statement.targets
                ):
                    return info, statement.value
                if (
                    isinstance(statement, ast.AnnAssign)
                    and isinstance(statement.target, ast.Name)
                    and statement.target.id == name
                    and statement.value is not None
                    and (dotted(statement.annotation) or "").endswith("TypeAlias")
                ):
                    return info, statement.value
                alias_node = getattr(ast, "TypeAlias", None)  # `type X = ...`: Python 3.12 syntax
                if alias_node is not None and isinstance(statement, alias_node) and statement.name.id == name:
                    return info, statement.value
        return None

    async def _generic(
        self, tree: ModuleTree, info: ModuleInfo, node: ast.Subscript, owner: Kind | None, depth: int
    ) -> list[Kind]:
        base = (dotted(node.value) or "").rsplit(".", 1)[-1]
        args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if base in _TRANSPARENT:
            return await self.annotation(tree, info, args[0], owner, depth + 1)
        if base == "Union":
            out: list[Kind] = []
            for arg in args:
                out.extend(await self.annotation(tree, info, arg, owner, depth + 1))
            return _dedupe(out)
        if base in _AWAITABLES:
            return await self.annotation(tree, info, args[-1], owner, depth + 1)
        if base in ("type", "Type"):
            inner = await self.annotation(tree, info, args[0], owner, depth + 1)
            return [Kind("class", k.module, k.name) if k.kind == "instance" else k for k in inner]
        if base in _SEQUENCES:
            items = await self.annotation(tree, info, args[0], owner, depth + 1)
            return [Kind("container", name=base, element=tuple(items))]
        if base in _MAPPINGS:
            values = await self.annotation(tree, info, args[-1], owner, depth + 1)
            return [Kind("container", name=base, element=tuple(values))]
        return await self.annotation(tree, info, node.value, owner, depth + 1)

    # ---------------------------------------------------------------- the used name
    async def member(self, kind: Kind, name: str) -> tuple[str, str]:
        """("found" | "missing" | "dynamic" | "unknown", why) for `name` on one receiver type."""
        if kind.kind in ("unknown", "absent"):
            return "unknown", kind.name
        if kind.kind == "module":
            found = await self.tree.lookup(kind.module, name)
            return found.kind, found.reason
        if kind.kind in ("class", "instance"):
            found = await self.tree.class_member(kind.module, kind.name, name, instance=kind.kind == "instance")
            stubs = await self.stubs() if found.kind == "dynamic" else None  # the package's own reading decides
            if stubs is not None:
                stubbed = await stubs.class_member(kind.module, kind.name, name, instance=kind.kind == "instance")
                if stubbed.kind == "found":
                    return "found", f"{stubbed.reason} (stub distribution)"
                if found.kind == "dynamic" and "not readable" in found.reason and stubbed.kind == "missing":
                    return "dynamic", f"{found.reason}; the stubs declare no {name!r}"
            return found.kind, found.reason
        if kind.kind == "builtin":
            runtime = getattr(builtins, kind.name)
            if hasattr(runtime, name):
                return "found", f"builtin {kind.name}.{name}"
            return "missing", f"builtin {kind.name} has no attribute {name!r}"
        if kind.kind == "container":
            return "unknown", f"a {kind.name} the package returns (its own methods are not the package's)"
        return "unknown", f".{name} on {kind.describe()}"


def merged_overloads(
    defs: Sequence[ast.FunctionDef | ast.AsyncFunctionDef],
) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """One definition returning the union of what every overload returns (a use is found on any of them)."""
    annotated = [d for d in defs if d.returns is not None and not _is_overload_impl(d, defs)]
    if len(annotated) <= 1:
        return annotated[0] if annotated else defs[-1]
    union: ast.expr = annotated[0].returns  # type: ignore[assignment]
    for each in annotated[1:]:
        assert each.returns is not None
        union = ast.BinOp(left=union, op=ast.BitOr(), right=each.returns)
    merged = copy.copy(annotated[-1])
    merged.returns = union
    return merged


def _is_overload_impl(fn: ast.FunctionDef | ast.AsyncFunctionDef, defs: Sequence[ast.stmt]) -> bool:
    """The implementation after `@overload`s: its broad annotation adds nothing the overloads do not say."""
    overloads = [d for d in defs if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_overload(d)]
    return bool(overloads) and not _is_overload(fn)


def _is_overload(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any((dotted(d) or "").rsplit(".", 1)[-1] == "overload" for d in fn.decorator_list)


def _annotated(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.AnnAssign) or (
        isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.returns is not None
    )


def _returns_self(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    returns = [n for n in ast.walk(fn) if isinstance(n, ast.Return)]
    return bool(returns) and all(isinstance(r.value, ast.Name) and r.value.id == "self" for r in returns)


def _returns_own_type(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`def __enter__(self: T) -> T`: the method returns the type of its receiver (a TypeVar bound on self)."""
    positional = [*fn.args.posonlyargs, *fn.args.args]
    if not positional or positional[0].annotation is None or fn.returns is None:
        return False
    first, returns = positional[0].annotation, fn.returns
    if isinstance(returns, ast.Constant) and isinstance(returns.value, str):
        return isinstance(first, ast.Constant) and first.value == returns.value
    return dotted(first) is not None and dotted(first) == dotted(returns)


def _dedupe(kinds: list[Kind]) -> list[Kind]:
    return list(dict.fromkeys(kinds))


async def decide(resolver: Resolver, module: str, path: Sequence[str]) -> tuple[str, str, list[Kind]]:
    """(verdict, why, receivers): found if any receiver has the name, missing if every one is read without it."""
    receivers = await resolver.receivers(module, path)
    name = path[-1]
    if receivers and all(k.kind == "absent" for k in receivers):
        return "absent", f"{ON_MISSING}: {receivers[0].name}", receivers
    results = [(kind, *(await resolver.member(kind, name))) for kind in receivers]
    for kind, verdict, why in results:
        if verdict == "found":
            return "found", f"{kind.describe()}.{name}: {why}", receivers
    if results and all(verdict == "missing" for _, verdict, _ in results):
        described = " | ".join(k.describe() for k in receivers)
        return "missing", f"{name} not found on {described}: " + "; ".join(w for _, _, w in results), receivers
    unknown = [w for _, verdict, w in results if verdict == "unknown"]
    if unknown:
        return "unknown", f"{RECEIVER_UNKNOWN}: {unknown[0]}", receivers
    return "dynamic", "; ".join(w for _, verdict, w in results if verdict == "dynamic"), receivers


async def check_python_use(
    client: RegistryClient, candidates: Sequence[DistCandidate], module: str, path: Sequence[str]
) -> SymbolVerdict:
    """Decide one typed use (`Use.path`) in each candidate distribution; the first decisive candidate wins."""
    if not candidates:
        note = Evidence("", None, utc_now(), f"no distribution known for {module}")
        return SymbolVerdict("unverified", "unmapped-import: no candidate distribution", None, (), (note,))
    outcomes: list[SymbolVerdict] = []
    for candidate in candidates:
        outcomes.append(await _check_candidate(client, candidate, module, tuple(path)))
    for wanted in ("found", "removed-api", "missing-symbol"):
        for outcome in outcomes:
            if outcome.verdict == wanted:
                others = tuple(o.candidate for o in outcomes if o.candidate and o is not outcome)
                return SymbolVerdict(outcome.verdict, outcome.reason, outcome.candidate, others, outcome.evidence)
    unknown = next((o for o in outcomes if o.reason.startswith(RECEIVER_UNKNOWN)), None)
    chosen = unknown or outcomes[0]
    return chosen


async def _check_candidate(
    client: RegistryClient, candidate: DistCandidate, module: str, path: tuple[str, ...]
) -> SymbolVerdict:
    dist = candidate.distribution
    package, document = await client.document("pypi", dist)
    if package.verdict != "exists" or document is None:
        return SymbolVerdict("unverified", f"registry: {package.reason}", dist, (), package.evidence)
    name = package.canonical_name or dist
    version = candidate.version or package.latest_version or ""
    label = f"{name}=={version}"
    opened = await open_release(client, document, name, version)
    if isinstance(opened, str):
        return SymbolVerdict("unverified", opened, label, (), package.evidence)
    tree = opened
    if not tree.is_module(module.split(".")[0]):
        return SymbolVerdict("unverified", f"{label} does not ship {module}", label, (), package.evidence)
    resolver = Resolver(tree, lambda: stub_tree(client, name))
    verdict, why, receivers = await decide(resolver, module, path)
    evidence = (*package.evidence, *tree.archive.evidence)
    if verdict == "found":
        return SymbolVerdict("found", why, label, (), evidence)
    if verdict in ("unknown", "absent"):
        return SymbolVerdict("unverified", why, label, (), evidence)
    if verdict == "dynamic":
        return SymbolVerdict("unverified", f"dynamic: {why}", label, (), evidence)

    async def judge(old: ModuleTree) -> tuple[str, str]:
        # the receiver's class as the current release names it first (older releases annotate less)
        for kind in receivers:
            if kind.kind in ("class", "instance", "module"):
                if kind.kind == "module":
                    there = await old.lookup(kind.module, path[-1])
                    if there.kind == "found":
                        return "found", there.reason
                    continue
                there = await old.class_member(kind.module, kind.name, path[-1], instance=kind.kind == "instance")
                if there.kind == "found":
                    return "found", f"{kind.describe()}.{path[-1]}: {there.reason}"
        old_verdict, old_why, _ = await decide(Resolver(old, resolver.stubs), module, path)
        return old_verdict, old_why

    older = await present_in_older(client, document, name, version, judge, older_series(document, version))
    if older is not None:
        old_version, old_why, old_evidence = older
        reason = f"{why} in {version}; last in {name} {old_version} ({old_why})"
        return SymbolVerdict("removed-api", reason, label, (), evidence + old_evidence)
    return SymbolVerdict("missing-symbol", why, label, (), evidence)


def receiver_chain(receivers: Sequence[Kind], name: str) -> tuple[str, ...]:
    """`(Class, name)` for the curated removal table when the receiver is one class."""
    classes = [k for k in receivers if k.kind in ("class", "instance")]
    return (classes[0].name, name) if len(classes) == 1 else ()


def to_plain(kinds: Sequence[Kind]) -> list[dict[str, Any]]:
    return [{"kind": k.kind, "type": k.describe()} for k in kinds]
