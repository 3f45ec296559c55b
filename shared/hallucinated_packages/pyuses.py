"""What a Python answer calls on the values a package gives it: `Use`s, followed through its own code.

`extract_python` finds the names an answer imports and the chains it writes on them
(`pd.read_csv`). The hallucinated function rate also needs what the answer does with the values
those give back: `pd.read_csv(path).append(row)`, `df.append(row)` on a parameter
`df: pd.DataFrame`, `with client.stream() as r: r.iter_bytes()`. This walk follows a value
through assignments (chains of them), calls, annotations of parameters, variables and class
attributes, `with` targets, `for` targets and comprehension variables over annotated iterables,
and writes one `Use` per method or attribute use whose path starts at an import. What the answer
loses the type of (an item of a subscript, an arithmetic result, a tuple unpacked) is a `Use`
with `receiver="unknown"`; a use on an unannotated parameter is an `UntypedUse`. Flow is read in
statement order, one scope at a time, with no fixpoint: bounded and deterministic. Embedded:
standard library only.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from .references import AWAIT, CALL, ELEMENT, ENTER, INSTANCE, UntypedUse, Use

VALUE_STEPS = frozenset({CALL, ELEMENT, ENTER, AWAIT, INSTANCE})
MAX_PATH = 12  # a longer chain of calls is recorded up to here, then unknown
_SEQUENCES = frozenset(
    {
        "list", "List", "Sequence", "MutableSequence", "Iterable", "Iterator", "set", "Set", "frozenset",
        "FrozenSet", "Collection", "Generator", "AsyncIterator", "AsyncIterable", "AsyncGenerator", "deque",
        "Deque", "tuple", "Tuple", "AbstractSet", "MutableSet",
    }
)  # fmt: skip
_MAPPINGS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "defaultdict", "DefaultDict", "OrderedDict"})
_TRANSPARENT = frozenset({"Optional", "Annotated", "Final", "ClassVar", "Required", "NotRequired", "ReadOnly"})
_KEEP_ITERABLE = frozenset({"list", "sorted", "reversed", "iter", "tuple", "set", "frozenset"})


@dataclass(frozen=True)
class ImportRoot:
    """A name bound by an import: the reference it belongs to and the path it stands for."""

    index: int
    prefix: tuple[str, ...]
    module_parts: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Val:
    """A value reached from a package: `path` from its module; `known` False once the answer loses its type."""

    index: int
    path: tuple[str, ...]
    known: bool = True
    counted: bool = False  # an unknown value whose use was already recorded once
    parts: tuple[str, ...] = ()  # submodule parts still to match (`import a.b` bound `a`)

    @property
    def is_value(self) -> bool:
        return not self.known or any(step in VALUE_STEPS for step in self.path)

    def step(self, step: str) -> _Val:
        if not self.known or len(self.path) >= MAX_PATH:
            return replace(self, known=False, path=self.path[:MAX_PATH])
        return replace(self, path=(*self.path, step))


@dataclass(frozen=True)
class _Container:
    """A builtin collection the answer annotated with a package's type for its items (or values)."""

    element: _Val | None
    mapping: bool = False


@dataclass(frozen=True)
class _User:
    """An instance of a class the answer defines: its attributes are typed by the answer's own code."""

    name: str


@dataclass(frozen=True)
class _Untyped:
    """An unannotated parameter: nothing says what it holds."""

    name: str


_Type = _Val | _Container | _User | _Untyped | None


@dataclass
class FlowResult:
    """Uses per reference index, and the answer's uses on untyped values."""

    uses: dict[int, list[Use]] = field(default_factory=dict)
    untyped: list[UntypedUse] = field(default_factory=list)


class _Flow:
    def __init__(self, roots: Mapping[str, ImportRoot], line_offset: int, classes: set[str]) -> None:
        self.roots = roots
        self.line_offset = line_offset
        self.classes = classes
        self.class_attrs: dict[tuple[str, str], _Type] = {}
        self.result = FlowResult()
        self._seen: set[tuple[int, tuple[str, ...], int, str]] = set()

    # ---------------------------------------------------------------- recording
    def _record(self, value: _Val, name: str, node: ast.expr) -> None:
        line = getattr(node, "lineno", 0) + self.line_offset
        if value.known:
            use = Use((*value.path, name), line, "typed")
        else:
            use = Use((*value.path, "?", name), line, "unknown", note="the answer's code loses the value's type")
        key = (value.index, use.path, line, use.receiver)
        if key not in self._seen:
            self._seen.add(key)
            self.result.uses.setdefault(value.index, []).append(use)

    # ---------------------------------------------------------------- annotations
    def annotation(self, node: ast.expr | None, env: dict[str, _Type]) -> _Type:
        """The type an annotation names, when it is (or holds items of) a package's type."""
        if node is None:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                parsed = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                return None
            return self.annotation(parsed, env)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return _union(self.annotation(node.left, env), self.annotation(node.right, env))
        if isinstance(node, ast.Subscript):
            base = _last_name(node.value)
            args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
            if base in _TRANSPARENT:
                return self.annotation(args[0], env)
            if base == "Union":
                out: _Type = None
                for arg in args:
                    out = _union(out, self.annotation(arg, env))
                return out
            if base in _SEQUENCES:
                item = self.annotation(args[0], env)
                return _Container(item if isinstance(item, _Val) else None)
            if base in _MAPPINGS and len(args) == 2:
                item = self.annotation(args[1], env)
                return _Container(item if isinstance(item, _Val) else None, mapping=True)
            return self.annotation(node.value, env)  # `pd.Series[int]`: the generic class itself
        if isinstance(node, (ast.Name, ast.Attribute)):
            if isinstance(node, ast.Name) and node.id in self.classes:
                return _User(node.id)
            typed = self._root_chain(node, {})
            if isinstance(typed, _Val) and typed.known and not typed.parts:
                return typed.step(INSTANCE)
        return None

    # ---------------------------------------------------------------- expressions
    def _root_chain(self, node: ast.expr, env: Mapping[str, _Type]) -> _Type:
        """`pd` or `pd.DataFrame` written as an annotation: the import it names, no uses recorded."""
        if isinstance(node, ast.Name):
            if node.id in env:
                return None
            root = self.roots.get(node.id)
            return _Val(root.index, root.prefix, parts=root.module_parts) if root else None
        if isinstance(node, ast.Attribute):
            inner = self._root_chain(node.value, env)
            return _attr_of_import(inner, node.attr) if isinstance(inner, _Val) and not inner.is_value else None
        return None

    def expr(self, node: ast.expr | None, env: dict[str, _Type]) -> _Type:
        """The type of `node` under `env`, recording every use inside it on the way."""
        if node is None:
            return None
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            root = self.roots.get(node.id)
            return _Val(root.index, root.prefix, parts=root.module_parts) if root else None
        if isinstance(node, ast.Attribute):
            return self._attribute(node, env)
        if isinstance(node, ast.Call):
            return self._call(node, env)
        if isinstance(node, ast.Subscript):
            value = self.expr(node.value, env)
            self.expr(node.slice, env)
            if isinstance(value, _Container):
                return value.element
            if isinstance(value, _Val) and value.is_value:
                return replace(value, known=False, counted=False) if value.known else value
            return None
        if isinstance(node, ast.Await):
            value = self.expr(node.value, env)
            return value.step(AWAIT) if isinstance(value, _Val) and value.is_value else None
        if isinstance(node, ast.NamedExpr):
            value = self.expr(node.value, env)
            env[node.target.id] = value
            return value
        if isinstance(node, ast.IfExp):
            self.expr(node.test, env)
            body = self.expr(node.body, env)
            other = self.expr(node.orelse, env)
            return body if body is not None else other
        if isinstance(node, ast.BoolOp):
            types = [self.expr(v, env) for v in node.values]
            return next((t for t in types if t is not None), None)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return self._comprehension(node, env)
        if isinstance(node, ast.Lambda):
            inner = dict(env)
            for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs):
                inner[arg.arg] = None
            self.expr(node.body, inner)
            return None
        types = [self.expr(child, env) for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)]
        if isinstance(node, ast.BinOp):
            package = next((t for t in types if isinstance(t, _Val) and t.is_value), None)
            return replace(package, known=False, counted=False) if package and package.known else package
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            item = next((t for t in types if isinstance(t, _Val)), None)
            return _Container(item) if item is not None else None
        return None

    def _attribute(self, node: ast.Attribute, env: dict[str, _Type]) -> _Type:
        value = self.expr(node.value, env)
        if isinstance(value, _User):
            return self.class_attrs.get((value.name, node.attr))
        if isinstance(value, _Untyped):
            if isinstance(node.ctx, ast.Load):
                line = node.lineno + self.line_offset
                self.result.untyped.append(UntypedUse("pypi", node.attr, value.name, line))
            return None
        if not isinstance(value, _Val):
            return None
        if not value.is_value:
            return _attr_of_import(value, node.attr)
        if value.counted:
            return value
        if isinstance(node.ctx, ast.Load):
            self._record(value, node.attr, node)
        if not value.known:
            return replace(value, counted=True)
        return value.step(node.attr)

    def _call(self, node: ast.Call, env: dict[str, _Type]) -> _Type:
        func = self.expr(node.func, env)
        args = [self.expr(a.value if isinstance(a, ast.Starred) else a, env) for a in node.args]
        for keyword in node.keywords:
            self.expr(keyword.value, env)
        if isinstance(node.func, ast.Name) and node.func.id not in env and node.func.id not in self.roots:
            name = node.func.id
            if name in self.classes:
                return _User(name)
            if name in _KEEP_ITERABLE and args and isinstance(args[0], _Container):
                return args[0]
            if name in ("enumerate", "zip"):
                return None  # tuples: handled where a `for` unpacks them
            if name == "next" and args and isinstance(args[0], _Container):
                return args[0].element
        if isinstance(func, _Val):
            if func.counted:
                return func
            return func.step(CALL) if func.known else replace(func, counted=True)
        if isinstance(node.func, ast.Attribute) and isinstance(self.expr_quiet(node.func.value, env), _Container):
            container = self.expr_quiet(node.func.value, env)
            assert isinstance(container, _Container)
            if node.func.attr in ("values", "copy") or (node.func.attr in ("get", "pop") and container.mapping):
                return _Container(container.element) if node.func.attr == "values" else container.element
            if node.func.attr == "pop":
                return container.element
        return None

    def expr_quiet(self, node: ast.expr, env: Mapping[str, _Type]) -> _Type:
        """The type of a plain name (no uses recorded): for reading what a method is called on."""
        if isinstance(node, ast.Name):
            return env.get(node.id)
        return None

    def _iterate(self, iterable: ast.expr, env: dict[str, _Type]) -> tuple[_Type, ast.expr | None]:
        """What one iteration yields, and the unpacking it implies (`enumerate`, `zip`, `.items()`)."""
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate":
            inner = self.expr(iterable.args[0], env) if iterable.args else None
            return _element(inner), None
        if (
            isinstance(iterable, ast.Call)
            and isinstance(iterable.func, ast.Attribute)
            and iterable.func.attr == "items"
            and not iterable.args
        ):
            owner = self.expr_quiet(iterable.func.value, env)
            if isinstance(owner, _Container) and owner.mapping:
                return owner.element, None
        return _element(self.expr(iterable, env)), iterable

    def _bind_iteration(self, target: ast.expr, iterable: ast.expr, env: dict[str, _Type]) -> None:
        item, plain = self._iterate(iterable, env)
        if isinstance(target, ast.Name):
            env[target.id] = item if plain is not None else None
            return
        if isinstance(target, ast.Tuple) and plain is None and len(target.elts) == 2:
            first, second = target.elts
            self._bind(first, None, env)
            self._bind(second, item, env)
            return
        self._bind(target, item, env)

    def _comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp, env: dict[str, _Type]
    ) -> _Type:
        inner = dict(env)
        for generator in node.generators:
            self._bind_iteration(generator.target, generator.iter, inner)
            for condition in generator.ifs:
                self.expr(condition, inner)
        if isinstance(node, ast.DictComp):
            self.expr(node.key, inner)
            value = self.expr(node.value, inner)
            return _Container(value if isinstance(value, _Val) else None, mapping=True)
        item = self.expr(node.elt, inner)
        return _Container(item if isinstance(item, _Val) else None)

    # ---------------------------------------------------------------- statements
    def _bind(self, target: ast.expr, value: _Type, env: dict[str, _Type]) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            lost = replace(value, known=False, counted=False) if isinstance(value, _Val) and value.is_value else None
            for element in target.elts:
                self._bind(element.value if isinstance(element, ast.Starred) else element, lost, env)
        elif isinstance(target, ast.Attribute):
            owner = self.expr(target.value, env)
            if isinstance(owner, _User):
                self.class_attrs.setdefault((owner.name, target.attr), value)
        elif isinstance(target, ast.Subscript):
            self.expr(target.value, env)
            self.expr(target.slice, env)

    def block(self, body: list[ast.stmt], env: dict[str, _Type], owner: str | None = None) -> None:
        for statement in body:
            self.statement(statement, env, owner)

    def statement(self, node: ast.stmt, env: dict[str, _Type], owner: str | None) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._function(node, env, owner)
        elif isinstance(node, ast.ClassDef):
            self._class(node, env)
        elif isinstance(node, ast.Assign):
            value = self.expr(node.value, env)
            for target in node.targets:
                self._bind(target, value, env)
        elif isinstance(node, ast.AnnAssign):
            declared = self.annotation(node.annotation, env)
            value = self.expr(node.value, env)
            if isinstance(node.target, ast.Attribute):
                owner_type = self.expr(node.target.value, env)
                if isinstance(owner_type, _User):
                    self.class_attrs[(owner_type.name, node.target.attr)] = declared or value
            else:
                self._bind(node.target, declared if declared is not None else value, env)
        elif isinstance(node, ast.AugAssign):
            value = self.expr(node.value, env)
            current = self.expr(node.target, env) if isinstance(node.target, ast.Name) else None
            if isinstance(node.target, ast.Name) and isinstance(current, _Val):
                env[node.target.id] = replace(current, known=False, counted=False) if current.known else current
            elif isinstance(node.target, ast.Name) and value is None:
                env[node.target.id] = current
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            before = dict(env)
            self._bind_iteration(node.target, node.iter, env)
            self.block(node.body, env, owner)
            _replace(env, _join(before, env))  # the body may run no time, once or many
            self.block(node.orelse, env, owner)
        elif isinstance(node, ast.While):
            self.expr(node.test, env)
            before = dict(env)
            self.block(node.body, env, owner)
            _replace(env, _join(before, env))
            self.block(node.orelse, env, owner)
        elif isinstance(node, ast.If):
            self.expr(node.test, env)
            taken, other = dict(env), dict(env)
            self.block(node.body, taken, owner)
            self.block(node.orelse, other, owner)
            _replace(env, _join(taken, other))
        elif isinstance(node, (ast.Try, ast.TryStar)):
            tried = dict(env)
            self.block(node.body, tried, owner)
            self.block(node.orelse, tried, owner)
            after = _join(env, tried)  # a handler may start anywhere in the body
            outcomes = [tried]
            for handler in node.handlers:
                handled = dict(after)
                if handler.name:
                    handled[handler.name] = None
                self.block(handler.body, handled, owner)
                outcomes.append(handled)
            joined = outcomes[0]
            for outcome in outcomes[1:]:
                joined = _join(joined, outcome)
            _replace(env, joined)
            self.block(node.finalbody, env, owner)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                value = self.expr(item.context_expr, env)
                entered: _Type = None
                if isinstance(value, _Val) and value.is_value:
                    entered = value.step(ENTER)
                elif isinstance(value, _Container):
                    entered = value.element
                if item.optional_vars is not None:
                    self._bind(item.optional_vars, entered, env)
            self.block(node.body, env, owner)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound = (alias.asname or alias.name).split(".")[0]
                if bound in env and bound not in self.roots:
                    env.pop(bound, None)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.expr(child, env)
                elif isinstance(child, ast.stmt):
                    self.statement(child, env, owner)
                elif isinstance(child, ast.ExceptHandler):
                    if child.name:
                        env[child.name] = None
                    self.block(child.body, env, owner)
                elif isinstance(child, ast.match_case):
                    self.block(child.body, env, owner)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, env: dict[str, _Type], owner: str | None) -> None:
        for decorator in node.decorator_list:
            self.expr(decorator, env)
        inner = dict(env)
        arguments = node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        for position, arg in enumerate([*positional, *arguments.kwonlyargs]):
            if owner is not None and position == 0 and arg in positional and arg.arg in ("self", "cls"):
                inner[arg.arg] = _User(owner) if arg.arg == "self" else None
                continue
            declared = self.annotation(arg.annotation, env)
            if arg.annotation is None:
                inner[arg.arg] = _Untyped(arg.arg)
            else:
                inner[arg.arg] = declared
        for extra in (arguments.vararg, arguments.kwarg):
            if extra is not None:
                inner[extra.arg] = None
        for default in (*arguments.defaults, *arguments.kw_defaults):
            self.expr(default, env)
        self.block(node.body, inner)

    def _class(self, node: ast.ClassDef, env: dict[str, _Type]) -> None:
        for base in node.bases:
            self.expr(base, env)
        body_env = dict(env)
        for statement in node.body:  # class attributes first: methods may use them
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                declared = self.annotation(statement.annotation, env)
                self.class_attrs[(node.name, statement.target.id)] = declared or self.expr(statement.value, env)
        for statement in node.body:  # then `self.x: T` in every method, wherever it is written
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(statement):
                    if (
                        isinstance(inner, ast.AnnAssign)
                        and isinstance(inner.target, ast.Attribute)
                        and isinstance(inner.target.value, ast.Name)
                        and inner.target.value.id == "self"
                    ):
                        declared = self.annotation(inner.annotation, env)
                        if declared is not None:
                            self.class_attrs[(node.name, inner.target.attr)] = declared
        methods = [s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
        methods.sort(key=lambda m: m.name != "__init__")  # `self.x = ...` in __init__ types the others
        for method in methods:
            self._function(method, body_env, node.name)
        for statement in node.body:
            if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.AnnAssign)):
                self.statement(statement, body_env, node.name)


def _join(left: Mapping[str, _Type], right: Mapping[str, _Type]) -> dict[str, _Type]:
    """Types after two paths meet: kept where they agree; a package's value that one path changed is lost."""
    out: dict[str, _Type] = {}
    for name in (*left, *(k for k in right if k not in left)):
        a, b = left.get(name), right.get(name)
        if a == b:
            out[name] = a
            continue
        if _same_instance(a, b):  # `df: pd.DataFrame` on one path, `df = pd.DataFrame()` on the other
            out[name] = a
            continue
        package = a if isinstance(a, _Val) else b if isinstance(b, _Val) else None
        if isinstance(package, _Val) and package.is_value:
            out[name] = replace(package, known=False, counted=False) if package.known else package
        else:
            out[name] = None
    return out


def _same_instance(a: _Type, b: _Type) -> bool:
    """An instance of the same class, once by annotation (`C :`) and once by construction (`C ()`)."""
    if not (isinstance(a, _Val) and isinstance(b, _Val) and a.known and b.known and a.index == b.index):
        return False
    if len(a.path) != len(b.path) or a.path[:-1] != b.path[:-1] or not a.path or not a.path[-2:-1]:
        return False
    return {a.path[-1], b.path[-1]} == {INSTANCE, CALL} and a.path[-2][:1].isupper()


def _replace(env: dict[str, _Type], new: Mapping[str, _Type]) -> None:
    env.clear()
    env.update(new)


def _attr_of_import(value: _Val, attr: str) -> _Val | None:
    """`a.b` where `a` names an import: the path grows, submodule parts of `import a.b` matched first."""
    if value.parts:
        return replace(value, parts=value.parts[1:]) if value.parts[0] == attr else None
    return value.step(attr)


def _element(value: _Type) -> _Type:
    if isinstance(value, _Container):
        return value.element
    if isinstance(value, _Val) and value.is_value:
        return value.step(ELEMENT)
    return None


def _union(left: _Type, right: _Type) -> _Type:
    """`X | None` is X; a union of two package types keeps the first (a use is decided on each later)."""
    if left is None:
        return right
    return left


def _last_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def follow_uses(tree: ast.Module, roots: Mapping[str, ImportRoot], *, line_offset: int = 0) -> FlowResult:
    """Every use on a value from an import (`roots`), and every use on an unannotated parameter."""
    classes = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    flow = _Flow(roots, line_offset, classes)
    flow.block(tree.body, {})
    return flow.result
