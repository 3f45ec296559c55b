"""Python references from one block of code, with `ast`; a line-wise fallback when it will not parse.

What counts: `import a.b`, `from a.b import c`, literal `importlib.import_module("x")` and
`__import__("x")`, imports under `try/except ImportError` or `if TYPE_CHECKING:` (marked
optional), and attribute chains, one or two links deep, on names bound by an import and never
reassigned (`np.fake_fn()`, `pd.DataFrame.append`), and the uses the code makes of the values
those give back (`pyuses`: `pd.read_csv(p).append`, `df.append` on `df: pd.DataFrame`). Relative
imports and modules the answer defines itself are `local`; standard-library modules are `stdlib` (the frozen 3.11 list).
Model answers are often not valid Python (notebook magics, `>>>` prompts, Python 2, cut-off
snippets): the magics are blanked and the parse retried, and failing that, import lines are
read with regular expressions and the block is flagged partially parsed, so nothing the model
imported is lost. Embedded: standard library only.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field

from ..pyparse import parse_python
from .pyuses import ImportRoot, follow_uses
from .references import Reference, UntypedUse, merge_symbols, merge_uses
from .stdlib_names import is_python_stdlib

MAX_CHAIN = 2
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
_SHELL_LINE = re.compile(r"^\s*(?:[!%].*|\$ .*|(?:pip3?|python3?|uv|poetry|conda|npm|yarn)\s.*)$")
_PROMPT = re.compile(r"^(\s*)(?:>>>|\.\.\.)(?: |$)")
_IMPORT_LINE = re.compile(r"^\s*import\s+(?P<names>[\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)")
_FROM_LINE = re.compile(r"^\s*from\s+(?P<module>\.*[\w.]*)\s+import\s+(?P<names>.+)$")


@dataclass(frozen=True)
class PythonExtraction:
    """References found in one block, and why some could not be (`problems`)."""

    references: tuple[Reference, ...]
    partially_parsed: bool = False
    problems: tuple[str, ...] = field(default=())
    untyped_uses: tuple[UntypedUse, ...] = ()


@dataclass
class _Binding:
    """A name bound by an import: which reference it belongs to and its chain prefix."""

    index: int
    prefix: tuple[str, ...]
    module_parts: tuple[str, ...] = ()


def _classify(module: str, local_modules: Collection[str]) -> str:
    top = module.split(".", 1)[0]
    if top in local_modules or module in local_modules:
        return "local"
    return "stdlib" if is_python_stdlib(module) else "third-party"


def _handler_catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    for node in types:
        name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
        if name in _IMPORT_ERRORS:
            return True
    return False


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _literal_dynamic_import(node: ast.Call, import_module_names: set[str]) -> tuple[str | None, bool]:
    """(module, is_dynamic_call) for `importlib.import_module(...)` / `__import__(...)` calls."""
    func = node.func
    is_call = (isinstance(func, ast.Name) and (func.id == "__import__" or func.id in import_module_names)) or (
        isinstance(func, ast.Attribute)
        and func.attr == "import_module"
        and isinstance(func.value, ast.Name)
        and func.value.id == "importlib"
    )
    if not is_call:
        return None, False
    if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return node.args[0].value, True
    return None, True


class _Collector(ast.NodeVisitor):
    def __init__(self, local_modules: Collection[str], line_offset: int) -> None:
        self.local_modules = local_modules
        self.line_offset = line_offset
        self.references: list[Reference] = []
        self.bindings: dict[str, _Binding] = {}
        self.rebound: set[str] = set()
        self.problems: list[str] = []
        self.import_module_names: set[str] = set()
        self._optional_depth = 0
        self._import_nodes: set[int] = set()

    # --- context: optional imports -------------------------------------------------------
    def visit_Try(self, node: ast.Try) -> None:
        optional = any(_handler_catches_import_error(h) for h in node.handlers)
        self._optional_depth += optional
        for statement in node.body:
            self.visit(statement)
        self._optional_depth -= optional
        for part in (*node.handlers, *node.orelse, *node.finalbody):
            self.visit(part)

    visit_TryStar = visit_Try  # type: ignore[assignment]

    def visit_If(self, node: ast.If) -> None:
        optional = _is_type_checking(node.test)
        self._optional_depth += optional
        for statement in node.body:
            self.visit(statement)
        self._optional_depth -= optional
        self.visit(node.test)
        for statement in node.orelse:
            self.visit(statement)

    # --- imports ---------------------------------------------------------------------------
    def _add(self, **fields: object) -> int:
        line = fields.pop("lineno")
        module = str(fields["module"])
        classification = fields.pop("classification", None) or _classify(module, self.local_modules)
        reference = Reference(
            ecosystem="pypi",
            package=module if module.startswith(".") else module.split(".", 1)[0],
            line=int(str(line)) + self.line_offset,
            optional=self._optional_depth > 0,
            classification=str(classification),
            **fields,  # type: ignore[arg-type]
        )
        self.references.append(reference)
        return len(self.references) - 1

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            index = self._add(source="import", text=alias.name, module=alias.name, lineno=node.lineno)
            if alias.asname:
                self.bindings[alias.asname] = _Binding(index, ())
            else:
                top = alias.name.split(".", 1)[0]
                self.bindings[top] = _Binding(index, (), tuple(alias.name.split(".")[1:]))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level:
            text = "." * node.level + (module or ",".join(alias.name for alias in node.names))
            self._add(
                source="import",
                text=text,
                module=text,
                lineno=node.lineno,
                classification="local",
                note="relative import",
            )
            return
        names = [alias for alias in node.names if alias.name != "*"]
        symbols = tuple((alias.name,) for alias in names)
        index = self._add(source="import", text=module, module=module, symbols=symbols, lineno=node.lineno)
        if module == "importlib":
            self.import_module_names.update(a.asname or a.name for a in names if a.name == "import_module")
        for alias in names:
            self.bindings[alias.asname or alias.name] = _Binding(index, (alias.name,))

    def visit_Call(self, node: ast.Call) -> None:
        module, is_dynamic = _literal_dynamic_import(node, self.import_module_names)
        if is_dynamic:
            if module is None:
                self.problems.append(f"line {node.lineno + self.line_offset}: non-literal dynamic import")
            elif module.startswith("."):
                self._add(
                    source="dynamic-import", text=module, module=module, lineno=node.lineno, classification="local"
                )
            else:
                self._add(source="dynamic-import", text=module, module=module, lineno=node.lineno)
        self.generic_visit(node)

    # --- rebinding (an alias assigned to something else is no longer the module) ---------------
    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.rebound.add(node.id)

    def visit_arg(self, node: ast.arg) -> None:
        self.rebound.add(node.arg)

    def _bind_def(self, name: str) -> None:
        self.rebound.add(name)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._bind_def(node.name)
        self.generic_visit(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._bind_def(node.name)
        self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._bind_def(node.name)
        self.generic_visit(node)


def _attribute_chain(node: ast.Attribute) -> tuple[str, list[str]] | None:
    """`a.b.c` -> ("a", ["b", "c"]); None when the root is not a plain name."""
    parts: list[str] = []
    current: ast.expr = node
    while isinstance(current, ast.Attribute):
        parts.append(current.attr)
        current = current.value
    if not isinstance(current, ast.Name):
        return None
    return current.id, parts[::-1]


def _outermost_attributes(tree: ast.AST) -> Iterator[ast.Attribute]:
    inner: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):
            inner.add(id(node.value))
    outermost = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and id(n) not in inner]
    yield from sorted(outermost, key=lambda n: (n.lineno, n.col_offset))


def _chain_for(binding: _Binding, attrs: list[str]) -> tuple[str, ...]:
    """Attribute chain relative to the imported module, submodule parts of `import a.b` removed."""
    rest = list(attrs)
    parts = list(binding.module_parts)
    while parts and rest and rest[0] == parts[0]:
        parts.pop(0)
        rest.pop(0)
    if parts:  # `import a.b` then `a.x`: an attribute of `a`, not of `a.b`; not tracked
        return ()
    return (*binding.prefix, *rest)[:MAX_CHAIN]


@dataclass
class _Instance:
    """A variable built by calling an imported class, and until where it surely still is one."""

    index: int
    class_name: str
    first_other: ast.Assign | ast.AugAssign | ast.AnnAssign | None = None  # first assignment of anything else
    attributes_set: set[str] = field(default_factory=set)  # `var.x = ...` in the answer


def _constructor(value: ast.expr, bindings: dict[str, _Binding], rebound: set[str]) -> tuple[int, str] | None:
    """`alias.Class(...)` or an imported `Class(...)` -> (reference, class name)."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        chain = _attribute_chain(value.func)
        if chain and chain[0] in bindings and chain[0] not in rebound and chain[1][-1][:1].isupper():
            binding = bindings[chain[0]]
            if not binding.prefix and len(chain[1]) == 1:
                return binding.index, chain[1][0]
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        bound = bindings.get(value.func.id)
        if bound and len(bound.prefix) == 1 and value.func.id not in rebound and bound.prefix[0][:1].isupper():
            return bound.index, bound.prefix[0]
    return None


def _instances(tree: ast.AST, bindings: dict[str, _Binding], rebound: set[str]) -> dict[str, _Instance]:
    """Variables assigned `alias.Class(...)`, with every other assignment to them remembered.

    A use counts as an instance of the class only before the first other assignment, or inside its
    right side (`df = df.append(row)` evaluates `df.append` on the DataFrame at least once, even in a
    loop), so `df.ngroups` after `df = df.groupby(...)` is never checked on DataFrame.
    """
    found: dict[str, _Instance] = {}
    conflicting: set[str] = set()
    others: dict[str, list[ast.Assign | ast.AugAssign | ast.AnnAssign]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for leaf in ast.walk(target):
                    if not (isinstance(leaf, ast.Name) and isinstance(leaf.ctx, ast.Store)):
                        continue
                    built = _constructor(node.value, bindings, rebound) if isinstance(node, ast.Assign) else None
                    if built is None or target is not leaf:
                        others.setdefault(leaf.id, []).append(node)
                    elif leaf.id in found and (found[leaf.id].index, found[leaf.id].class_name) != built:
                        conflicting.add(leaf.id)
                    else:
                        found.setdefault(leaf.id, _Instance(*built))
    for name in conflicting | (set(found) & rebound_by_definition(tree)):
        found.pop(name, None)
    for name, instance in found.items():
        assigned = sorted(others.get(name, []), key=lambda n: (n.lineno, n.col_offset))
        instance.first_other = assigned[0] if assigned else None
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del))):
            continue
        if isinstance(node.value, ast.Name) and node.value.id in found:
            found[node.value.id].attributes_set.add(node.attr)
    return found


def rebound_by_definition(tree: ast.AST) -> set[str]:
    """Names also bound by `def`, `class`, `import`, `for`, `with ... as`, `except ... as` or a parameter."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            names |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            names |= {n.id for n in ast.walk(node.optional_vars) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def _still_instance(instance: _Instance, use: ast.Attribute) -> bool:
    """The first time `use` runs, the variable still holds the object the class built."""
    other = instance.first_other
    if other is None:
        return True
    if other.value is not None and any(n is use for n in ast.walk(other.value)):
        return True
    return (use.lineno, use.col_offset) < (other.lineno, other.col_offset)


def _collect_chains(collector: _Collector, tree: ast.AST) -> None:
    extra: dict[int, list[tuple[str, ...]]] = {}
    instance_extra: dict[int, list[tuple[str, ...]]] = {}
    usable = {name: b for name, b in collector.bindings.items() if name not in collector.rebound}
    instances = _instances(tree, usable, collector.rebound)
    for node in _outermost_attributes(tree):
        chain = _attribute_chain(node)
        if chain is None:
            continue
        root, attrs = chain
        if root in usable:
            binding = usable[root]
            symbol = _chain_for(binding, attrs)
            if symbol:
                extra.setdefault(binding.index, []).append(symbol)
        elif root in instances:
            instance = instances[root]
            if attrs[0] in instance.attributes_set or not _still_instance(instance, node):
                continue
            instance_extra.setdefault(instance.index, []).append((instance.class_name, attrs[0]))
    for index, chains in extra.items():
        reference = collector.references[index]
        collector.references[index] = reference.with_changes(symbols=merge_symbols(reference.symbols, tuple(chains)))
    for index, chains in instance_extra.items():
        reference = collector.references[index]
        collector.references[index] = reference.with_changes(
            instance_symbols=merge_symbols(reference.instance_symbols, tuple(chains))
        )


def _blank_unparsable_lines(code: str) -> str:
    """Notebook magics, shell lines and REPL prompts made harmless, line numbers kept."""
    lines = []
    for line in code.splitlines():
        if _SHELL_LINE.match(line):
            lines.append("")
        else:
            lines.append(_PROMPT.sub(r"\1", line))
    return "\n".join(lines)


def _regex_fallback(code: str, local_modules: Collection[str], line_offset: int) -> list[Reference]:
    """Import lines read one by one: the last resort for code `ast` rejects."""
    references: list[Reference] = []
    for number, line in enumerate(code.splitlines(), start=1):
        plain = _PROMPT.sub(r"\1", line)
        match = _IMPORT_LINE.match(plain)
        if match:
            for part in match.group("names").split(","):
                module = part.strip().split()[0]
                references.append(_fallback_reference(module, (), number + line_offset, local_modules))
            continue
        match = _FROM_LINE.match(plain)
        if match:
            module = match.group("module")
            names = re.findall(r"\b(\w+)(?:\s+as\s+\w+)?", match.group("names").strip("() \\"))
            symbols = tuple((n,) for n in names if n != "as" and n != "import")
            references.append(_fallback_reference(module, symbols, number + line_offset, local_modules))
    return references


def _fallback_reference(
    module: str, symbols: tuple[tuple[str, ...], ...], line: int, local_modules: Collection[str]
) -> Reference:
    classification = "local" if module.startswith(".") else _classify(module, local_modules)
    return Reference(
        ecosystem="pypi",
        source="import",
        text=module,
        package=module.split(".", 1)[0] if not module.startswith(".") else module,
        module=module,
        symbols=symbols if classification != "local" else (),
        line=line,
        classification=classification,
        partially_parsed=True,
    )


def extract_python(code: str, *, local_modules: Collection[str] = (), line_offset: int = 0) -> PythonExtraction:
    """All references in one Python block; `line_offset` maps block lines to answer lines."""
    problems: list[str] = []
    tree: ast.AST | None = None
    for attempt in (code, _blank_unparsable_lines(code)):
        try:
            tree = parse_python(attempt)
            break
        except (SyntaxError, ValueError, RecursionError) as exc:
            problems.append(f"{type(exc).__name__}: {getattr(exc, 'msg', exc)} (line {getattr(exc, 'lineno', '?')})")
    if tree is None:
        fallback = _regex_fallback(code, local_modules, line_offset)
        return PythonExtraction(tuple(fallback), partially_parsed=True, problems=tuple(problems[-1:]))
    collector = _Collector(local_modules, line_offset)
    collector.visit(tree)
    _collect_chains(collector, tree)
    untyped = _collect_uses(collector, tree, line_offset) if isinstance(tree, ast.Module) else []
    return PythonExtraction(
        tuple(collector.references),
        partially_parsed=False,
        problems=tuple(collector.problems),
        untyped_uses=tuple(untyped),
    )


def _collect_uses(collector: _Collector, tree: ast.Module, line_offset: int) -> list[UntypedUse]:
    """What the answer does with the values its third-party imports give back (`pyuses`)."""
    roots = {
        name: ImportRoot(b.index, b.prefix, b.module_parts)
        for name, b in collector.bindings.items()
        if name not in collector.rebound and collector.references[b.index].classification == "third-party"
    }
    try:
        flow = follow_uses(tree, roots, line_offset=line_offset)
    except RecursionError:  # an expression nested past the interpreter's limit: its imports still count
        collector.problems.append("uses not followed: code nested too deeply")
        return []
    for index, uses in flow.uses.items():
        reference = collector.references[index]
        # `df = pd.DataFrame(); df.append` is already an instance chain of the reference
        kept = tuple(
            u
            for u in uses
            if not (len(u.path) == 3 and u.path[1] == "()" and (u.path[0], u.path[2]) in reference.instance_symbols)
        )
        collector.references[index] = reference.with_changes(uses=merge_uses(reference.uses, kept))
    return flow.untyped
