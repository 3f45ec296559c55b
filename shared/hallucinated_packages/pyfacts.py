"""What one Python module file binds, as far as reading it without running it can tell.

The facts the symbol index needs from a `.py` or `.pyi` file: names bound by definitions,
assignments and imports (recursing into top-level `if`/`try`/`with`/`for` blocks), `__all__`,
star imports, classes and functions, values built by calling a class, and every way the module
may bind names nobody can read: writes to `globals()` or `sys.modules`, `globals().update`,
statements that do not parse. A write whose keys are known is not "dynamic": a loop over a
literal list (numpy's `for ta in ["float96", ...]: globals()[ta] = ...`) binds those names,
a loop over `dir(M)` binds the names of module M (torch fills itself from its compiled
`_C._VariableFunctions`, whose stub names them), and a key with a literal prefix
(`f"_sym_{name}"`) can only bind names with that prefix.

Two module hooks are read closely. PEP 562 `__getattr__`: a name reaches its dynamic calls
only where a guard (`name in LAZY`, `name == "x"`, `v = TABLE.get(name)` then `v is not
None`) has limited it to literal names; an unguarded dynamic call, or passing the name to a
function nobody read, means any name may come out. `__dir__`: when it returns `__all__` (or
`globals()` keys and literals), the module itself declares its names, as pydantic, scipy and
scikit-learn do. Embedded: standard library only.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .pysource import Unreadable, parse_source

DYNAMIC_CALLS = frozenset({"import_module", "__import__", "getattr", "import_string", "lazy_import", "attach"})
_SAFE_CALLS = frozenset(
    {"warn", "print", "str", "repr", "len", "isinstance", "format", "startswith", "endswith", "lower", "upper",
     "join", "split", "strip", "get", "debug", "info", "warning", "error", "deprecation", "hasattr"}
)  # fmt: skip
_HARMLESS_DECORATORS = frozenset(
    {"dataclass", "dataclasses.dataclass", "total_ordering", "functools.total_ordering", "final", "typing.final",
     "typing_extensions.final", "runtime_checkable", "typing.runtime_checkable", "unique", "enum.unique",
     "dataclass_transform", "deprecated", "warnings.deprecated", "typing_extensions.deprecated", "attr.s",
     "attr.attrs", "attr.define", "attr.frozen", "attr.mutable", "attrs.define", "attrs.frozen", "attrs.mutable",
     "define", "frozen", "mutable", "functools.cache", "type_check_only", "typing.type_check_only"}
)  # fmt: skip


@dataclass
class ModuleFacts:
    """Names one module file binds (a `.py` or a `.pyi`), and why others might exist."""

    name: str
    is_package: bool
    stub: bool
    names: set[str] = field(default_factory=set)
    imports: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    instances: dict[str, str] = field(default_factory=dict)  # value name -> dotted class it was built from
    class_extras: dict[str, set[str]] = field(default_factory=dict)
    class_touched: dict[str, list[str]] = field(default_factory=dict)  # class -> import-time calls that get it
    class_gaps: dict[str, list[str]] = field(default_factory=dict)  # class -> members that did not parse
    all_names: set[str] | None = None
    all_computed: bool = False
    star_imports: list[str] = field(default_factory=list)
    dir_imports: list[str] = field(default_factory=list)  # modules whose dir() fills globals()
    key_prefixes: list[str] = field(default_factory=list)  # globals()[prefix + ...] = ...
    getattr_fn: ast.FunctionDef | None = None
    dir_fn: ast.FunctionDef | None = None
    containers: dict[str, ast.expr] = field(default_factory=dict)
    dynamic: list[str] = field(default_factory=list)
    how: str = "parsed"

    def note(self, reason: str) -> None:
        if reason not in self.dynamic:
            self.dynamic.append(reason)


def read_module_facts(text: str, member: str, dotted: str, *, is_package: bool) -> ModuleFacts:
    """Facts of one file; never raises on syntax (what does not parse is recorded)."""
    facts = ModuleFacts(dotted, is_package, stub=member.endswith(".pyi"))
    parsed = parse_source(text, member)
    facts.how = parsed.how
    _collect(facts, parsed.module.body)
    writers = {name for name, fn in facts.functions.items() if any(_write_target(n) for n in ast.walk(fn))}
    _scan_writes(facts, parsed.module.body, loops={}, writers=writers)
    _scan_class_touches(facts, parsed.module.body)
    for lost in parsed.unreadable:
        _record_unreadable(facts, lost, member)
    return facts


def _record_unreadable(facts: ModuleFacts, lost: Unreadable, member: str) -> None:
    if lost.owner is not None:
        if lost.binds is not None:
            facts.class_extras.setdefault(lost.owner, set()).add(lost.binds)
        else:
            facts.class_gaps.setdefault(lost.owner, []).append(f"{member}: {lost.describe()}")
        return
    if lost.binds is not None:
        facts.names.add(lost.binds)
        if lost.kind == "class":
            facts.class_gaps.setdefault(lost.binds, []).append(f"{member}: {lost.describe()}")
    else:
        facts.note(f"{member}: {lost.describe()}")


# ---------------------------------------------------------------------- binding names
def resolve_relative(facts: ModuleFacts, module: str | None, level: int) -> str:
    if level == 0:
        return module or ""
    base = facts.name.split(".")
    if not facts.is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, *([module] if module else [])])


def _collect(facts: ModuleFacts, body: list[ast.stmt]) -> None:
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            facts.names.add(stmt.name)
            facts.functions[stmt.name] = stmt
            if isinstance(stmt, ast.FunctionDef) and stmt.name == "__getattr__":
                facts.getattr_fn = stmt
            if isinstance(stmt, ast.FunctionDef) and stmt.name == "__dir__":
                facts.dir_fn = stmt
        elif isinstance(stmt, ast.ClassDef):
            facts.names.add(stmt.name)
            facts.classes[stmt.name] = stmt
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    facts.names.add(alias.asname)
                    facts.imports[alias.asname] = (alias.name, None)
                else:
                    head = alias.name.split(".")[0]
                    facts.names.add(head)
                    facts.imports.setdefault(head, (head, None))
        elif isinstance(stmt, ast.ImportFrom):
            source = resolve_relative(facts, stmt.module, stmt.level)
            for alias in stmt.names:
                if alias.name == "*":
                    facts.star_imports.append(source)
                    continue
                bound = alias.asname or alias.name
                facts.names.add(bound)
                facts.imports[bound] = (source, alias.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            _collect_assignment(facts, stmt)
        elif isinstance(stmt, (ast.If, ast.Try, ast.TryStar, ast.With, ast.AsyncWith, ast.For, ast.While)):
            if isinstance(stmt, ast.For):
                _bind_targets(facts, stmt.target)
            for block in blocks(stmt):
                _collect(facts, block)
        elif isinstance(stmt, ast.Expr):
            _collect_call(facts, stmt.value)


def blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists nested in a compound statement (bodies, else, finally, handlers)."""
    out: list[list[ast.stmt]] = []
    for attr in ("body", "orelse", "finalbody"):
        value = getattr(stmt, attr, None)
        if isinstance(value, list):
            out.append(value)
    for handler in getattr(stmt, "handlers", []) or []:
        out.append(handler.body)
    return out


def _bind_targets(facts: ModuleFacts, target: ast.expr) -> None:
    if isinstance(target, ast.Name):
        facts.names.add(target.id)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            _bind_targets(facts, element)
    elif isinstance(target, ast.Starred):
        _bind_targets(facts, target.value)


def _collect_assignment(facts: ModuleFacts, stmt: ast.Assign | ast.AnnAssign | ast.AugAssign) -> None:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    value = stmt.value
    for target in targets:
        _bind_targets(facts, target)
        if isinstance(target, ast.Name) and value is not None:
            if target.id == "__all__":
                _assign_all(facts, value, augment=isinstance(stmt, ast.AugAssign))
            else:
                facts.containers[target.id] = value
                built = _constructed_class(value)
                if built is not None:
                    facts.instances[target.id] = built
                else:
                    facts.instances.pop(target.id, None)
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            facts.class_extras.setdefault(target.value.id, set()).add(target.attr)


def _constructed_class(value: ast.expr) -> str | None:
    """`Cls(...)` or `mod.Cls(...)` (a capitalised callee, the convention for classes) -> its dotted name."""
    if not isinstance(value, ast.Call):
        return None
    callee = dotted(value.func)
    if callee is None or "(" in callee or not callee.split(".")[-1][:1].isupper():
        return None
    return callee


def _assign_all(facts: ModuleFacts, value: ast.expr, *, augment: bool) -> None:
    names = literal_strings(value)
    if names is None:
        facts.all_computed = True
        return
    if augment and facts.all_names is not None:
        facts.all_names |= names
    elif not augment:
        facts.all_names = names


def _collect_call(facts: ModuleFacts, value: ast.expr) -> None:
    if not isinstance(value, ast.Call):
        return
    func = dotted(value.func)
    if func in ("__all__.extend", "__all__.append"):
        for arg in value.args:
            extra = literal_strings(arg)
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                extra = {arg.value}
            if extra is None:
                facts.all_computed = True
            elif facts.all_names is not None:
                facts.all_names |= extra
    elif func == "setattr" and value.args and isinstance(value.args[0], ast.Name) and len(value.args) > 1:
        name = value.args[1]
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            facts.class_extras.setdefault(value.args[0].id, set()).add(name.value)
        else:
            facts.class_extras.setdefault(value.args[0].id, set()).add("*")


# ---------------------------------------------------------------------- dynamic writes
def _scan_writes(facts: ModuleFacts, body: list[ast.stmt], *, loops: dict[str, ast.expr], writers: set[str]) -> None:
    """Writes to globals()/sys.modules at import time, with what their keys can be."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(stmt, ast.For):
            inner = dict(loops)
            if isinstance(stmt.target, ast.Name):
                inner[stmt.target.id] = stmt.iter
            _scan_nodes(facts, [stmt.iter], loops, writers)
            for block in blocks(stmt):
                _scan_writes(facts, block, loops=inner, writers=writers)
            continue
        if isinstance(stmt, (ast.If, ast.Try, ast.TryStar, ast.With, ast.AsyncWith, ast.While)):
            heads: list[ast.AST] = [getattr(stmt, "test", None) or ast.Pass()]
            _scan_nodes(facts, heads, loops, writers)
            for block in blocks(stmt):
                _scan_writes(facts, block, loops=loops, writers=writers)
            continue
        _scan_nodes(facts, [stmt], loops, writers)
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            loops = {**loops, stmt.targets[0].id: ast.Tuple(elts=[stmt.value], ctx=ast.Load())}


def _write_target(node: ast.AST) -> str | None:
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
        holder = dotted(node.value)
        if holder in ("sys.modules", "globals()", "vars()", "locals()"):
            return holder
    if isinstance(node, ast.Call):
        func = dotted(node.func)
        if func in ("globals().update", "vars().update", "locals().update"):
            return func
        if func == "setattr" and node.args and (dotted(node.args[0]) or "").startswith("sys.modules"):
            return "setattr(sys.modules[...])"
    return None


def _scan_nodes(facts: ModuleFacts, roots: list[ast.AST], loops: dict[str, ast.expr], writers: set[str]) -> None:
    for root in roots:
        for node in ast.walk(root):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in writers:
                facts.note(f"{facts.name} calls {node.func.id}(), which writes globals() or sys.modules")
            target = _write_target(node)
            if target is None:
                continue
            if target == "sys.modules":
                facts.note(f"{facts.name} writes sys.modules")
            elif isinstance(node, ast.Subscript):
                _key_write(facts, node.slice, loops)
            elif isinstance(node, ast.Call) and target.endswith(".update") and node.args:
                keys = _dict_keys(node.args[0])
                if keys is None:
                    facts.note(f"{facts.name} calls {target} with keys it computes")
                else:
                    facts.names |= keys
            else:
                key = node.args[1] if isinstance(node, ast.Call) and len(node.args) > 1 else None
                if key is None:
                    facts.note(f"{facts.name} calls {target}")
                else:
                    _key_write(facts, key, loops)


def _key_write(facts: ModuleFacts, key: ast.expr, loops: dict[str, ast.expr]) -> None:
    """Bind what a `globals()[key] = ...` write can bind, or record why it cannot be known."""
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        facts.names.add(key.value)
        return
    prefix = _literal_prefix(key)
    if prefix:
        facts.key_prefixes.append(prefix)
        return
    if isinstance(key, ast.Name) and key.id in loops:
        source = loops[key.id]
        if isinstance(source, ast.Tuple) and len(source.elts) == 1 and not isinstance(source.elts[0], ast.Constant):
            # a name assigned just before the write (`key = f"_sym_{name}"`): judge what it was assigned
            _key_write(facts, source.elts[0], {k: v for k, v in loops.items() if k != key.id})
            return
        names = literal_strings(source)
        if names is None and isinstance(source, ast.Name) and source.id in facts.containers:
            names = literal_strings(facts.containers[source.id])
        if names is not None:
            facts.names |= names
            return
        if isinstance(source, ast.Call) and dotted(source.func) == "dir" and len(source.args) == 1:
            module = dotted(source.args[0])
            if module is not None and "(" not in module:
                facts.dir_imports.append(module)
                return
    facts.note(f"{facts.name} writes globals() under keys it computes ({ast.unparse(key)[:40]})")


def _literal_prefix(key: ast.expr) -> str:
    if isinstance(key, ast.JoinedStr) and key.values:
        first = key.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value
    if isinstance(key, ast.BinOp) and isinstance(key.op, ast.Add):
        left = key.left
        if isinstance(left, ast.Constant) and isinstance(left.value, str):
            return left.value
    return ""


def _dict_keys(value: ast.expr) -> set[str] | None:
    if isinstance(value, ast.Dict) and all(
        isinstance(k, ast.Constant) and isinstance(k.value, str) for k in value.keys
    ):
        return {k.value for k in value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    return None


def _scan_class_touches(facts: ModuleFacts, body: list[ast.stmt]) -> None:
    """Import-time statements that may add attributes to a class: bare calls that get it, rebinding it."""
    for stmt in body:
        if isinstance(stmt, (ast.If, ast.Try, ast.TryStar, ast.With)):
            for block in blocks(stmt):
                _scan_class_touches(facts, block)
            continue
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name) and target.id in facts.classes:
                    facts.class_touched.setdefault(target.id, []).append(f"{target.id} rebound at import")
            continue
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
            continue
        call = stmt.value
        func = dotted(call.func) or ""
        head = func.split(".")[0]
        if head in facts.classes and "." in func:
            facts.class_touched.setdefault(head, []).append(f"{func}() at import")
        for arg in call.args:
            if isinstance(arg, ast.Name) and arg.id in facts.classes:
                facts.class_touched.setdefault(arg.id, []).append(f"{func or 'a call'}({arg.id}) at import")


# ---------------------------------------------------------------------- helpers
def literal_strings(value: ast.expr) -> set[str] | None:
    """The strings of a literal list/tuple/set (or a `+`/`|` of them, or a dict's keys); None if not literal."""
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        out: set[str] = set()
        for element in value.elts:
            if isinstance(element, ast.Constant) and isinstance(element.value, str):
                out.add(element.value)
            else:
                return None
        return out
    if isinstance(value, ast.Dict):
        return _dict_keys(value)
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.BitOr)):
        left, right = literal_strings(value.left), literal_strings(value.right)
        return None if left is None or right is None else left | right
    if isinstance(value, ast.Call) and dotted(value.func) in ("frozenset", "set", "tuple", "list", "sorted"):
        if not value.args:
            return set()
        return literal_strings(value.args[0]) if len(value.args) == 1 else None
    return None


def dotted(node: ast.expr) -> str | None:
    """`a.b.c` -> "a.b.c"; `f()` -> "f()" (no arguments); None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = dotted(node.value)
        return f"{inner}.{node.attr}" if inner else None
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        inner = dotted(node.func)
        return f"{inner}()" if inner else None
    return None


def string_literals(node: ast.AST, containers: dict[str, ast.expr]) -> set[str]:
    """Every string literal in `node` and in the module-level containers it names."""
    found: set[str] = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
            found.add(inner.value)
        elif isinstance(inner, ast.Name) and inner.id in containers:
            for leaf in ast.walk(containers[inner.id]):
                if isinstance(leaf, ast.Constant) and isinstance(leaf.value, str):
                    found.add(leaf.value)
    return found


# ---------------------------------------------------------------------- PEP 562 hooks
@dataclass(frozen=True)
class GetattrReading:
    """What a module `__getattr__` can produce: only `literal` names, or (when `open`) anything."""

    literal: frozenset[str]
    open: str | None  # why any name may come out; None when only literal names can


def read_getattr(facts: ModuleFacts) -> GetattrReading | None:
    fn = facts.getattr_fn
    if fn is None:
        return None
    if not fn.args.args:
        return GetattrReading(frozenset(), f"{facts.name}.__getattr__ takes no name")
    param = fn.args.args[0].arg
    scan = _GuardScan(facts, param)
    scan.block(fn.body, guarded=False)
    literal = frozenset(string_literals(fn, facts.containers))
    return GetattrReading(literal, scan.open)


class _GuardScan:
    """Walks `__getattr__`: is the requested name ever used unguarded where a new value can come from it?"""

    def __init__(self, facts: ModuleFacts, param: str) -> None:
        self.facts = facts
        self.tainted = {param}  # the name, and values computed from it
        self.lookups: set[str] = set()  # values looked up in a table by the name (None when absent)
        self.open: str | None = None

    def block(self, body: list[ast.stmt], *, guarded: bool) -> None:
        for stmt in body:
            if isinstance(stmt, ast.If):
                narrows = self._narrows(stmt.test)
                self.block(stmt.body, guarded=guarded or narrows)
                negated = self._narrows_when_false(stmt.test)
                self.block(stmt.orelse, guarded=guarded or negated)
                if not guarded and negated and _exits(stmt.body):
                    guarded = True  # `if name not in TABLE: raise ...`: the rest sees table names only
                continue
            if isinstance(stmt, (ast.Try, ast.With, ast.For, ast.While, ast.TryStar)):
                for inner in blocks(stmt):
                    self.block(inner, guarded=guarded)
                continue
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Raise)):
                continue
            if isinstance(stmt, ast.Assign):
                self._assign(stmt)
            if not guarded:
                self._sinks(stmt)

    def _uses_name(self, node: ast.AST) -> bool:
        return any(isinstance(n, ast.Name) and n.id in self.tainted for n in ast.walk(node))

    def _assign(self, stmt: ast.Assign) -> None:
        value = stmt.value
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr == "get"
            and value.args
            and self._uses_name(value.args[0])
        ):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    self.lookups.add(target.id)
            return
        if self._uses_name(value):
            for target in stmt.targets:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name):
                        self.tainted.add(leaf.id)

    def _narrows(self, test: ast.expr) -> bool:
        """True when the test can only hold for literal names (or table entries)."""
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            return any(self._narrows(v) for v in test.values)
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
            return all(self._narrows(v) for v in test.values)
        if isinstance(test, ast.Name) and test.id in self.lookups:
            return True
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            left, op, right = test.left, test.ops[0], test.comparators[0]
            if isinstance(left, ast.Name) and left.id in self.tainted:
                return isinstance(op, (ast.In, ast.Eq)) and self._table_or_literal(right)
            if isinstance(left, ast.Name) and left.id in self.lookups:
                return isinstance(op, ast.IsNot) and isinstance(right, ast.Constant) and right.value is None
        return False

    def _narrows_when_false(self, test: ast.expr) -> bool:
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self._narrows(test.operand)
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            left, op, right = test.left, test.ops[0], test.comparators[0]
            if isinstance(left, ast.Name) and left.id in self.tainted:
                return isinstance(op, (ast.NotIn, ast.NotEq)) and self._table_or_literal(right)
            if isinstance(left, ast.Name) and left.id in self.lookups:
                return isinstance(op, ast.Is) and isinstance(right, ast.Constant) and right.value is None
        return False

    def _table_or_literal(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return True
        if literal_strings(node) is not None:
            return True
        return isinstance(node, ast.Name) and node.id in self.facts.containers

    def _sinks(self, stmt: ast.stmt) -> None:
        if self.open is not None:
            return
        for node in ast.walk(stmt):
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
                holder = dotted(node.value) or ""
                if holder.startswith("sys.modules") and self._uses_name(node.slice):
                    self.open = f"{self.facts.name}.__getattr__ reads sys.modules by the name"
                    return
            if not isinstance(node, ast.Call):
                continue
            called = dotted(node.func) or ""
            last = called.split(".")[-1]
            arguments = [*node.args, *(k.value for k in node.keywords)]
            if not any(self._uses_name(a) for a in arguments):
                continue
            if last in DYNAMIC_CALLS or called.startswith("sys.modules"):
                self.open = f"{self.facts.name}.__getattr__ loads names dynamically ({called})"
                return
            if called == "globals().get" or last in _SAFE_CALLS or last.endswith(("Error", "Warning", "Exception")):
                continue
            self.open = f"{self.facts.name}.__getattr__ passes the name to {called or 'a call'}"
            return


def _exits(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], (ast.Raise, ast.Return))


def dir_declares_names(facts: ModuleFacts) -> bool:
    """`__dir__` returns only `__all__`, `globals()` keys and literals: the module declares its own names."""
    fn = facts.dir_fn
    if fn is None:
        return False
    returns = [n for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value is not None]
    if not returns:
        return False
    local: dict[str, ast.expr] = {}
    for node in ast.walk(fn):
        if isinstance(node, (ast.Assign, ast.AugAssign)) and isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    local[target.id] = node.value
    return all(_declared_expr(r.value, facts, local, 0) for r in returns if r.value is not None)


def _declared_expr(node: ast.expr, facts: ModuleFacts, local: dict[str, ast.expr], depth: int) -> bool:
    if depth > 8:
        return False
    if isinstance(node, ast.Name):
        if node.id == "__all__":
            return facts.all_names is not None and not facts.all_computed
        if node.id in local:
            return _declared_expr(local[node.id], facts, {}, depth + 1)
        return node.id in facts.containers and literal_strings(facts.containers[node.id]) is not None
    if literal_strings(node) is not None:
        return True
    if isinstance(node, ast.BinOp):
        return _declared_expr(node.left, facts, local, depth + 1) and _declared_expr(
            node.right, facts, local, depth + 1
        )
    if isinstance(node, ast.Call):
        func = dotted(node.func) or ""
        if func in ("globals().keys", "globals"):
            return True
        if func in ("list", "sorted", "set", "tuple", "frozenset") and len(node.args) == 1:
            return _declared_expr(node.args[0], facts, local, depth + 1)
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("keys", "copy"):
            return _declared_expr(node.func.value, facts, local, depth + 1)
    return False


# ---------------------------------------------------------------------- decorators
def decorator_effect(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[set[str], str | None]:
    """Attribute names an in-tree class decorator sets (dunders left out), or why they cannot be known."""
    names: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if not (node.attr.startswith("__") and node.attr.endswith("__")):
                names.add(node.attr)
        elif isinstance(node, ast.Call) and dotted(node.func) == "setattr" and len(node.args) > 1:
            key = node.args[1]
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return names, f"decorator {fn.name} sets computed attributes"
            names.add(key.value)
    return names, None


def harmless_decorator(name: str) -> bool:
    return name in _HARMLESS_DECORATORS
