"""JavaScript/TypeScript/JSX references from one block of code, with tree-sitter.

Node's own lexers fail on JSX and ignore `require()`, so model answers are parsed with
tree-sitter's JavaScript, TypeScript and TSX grammars. Collected: static `import`, dynamic
`import("x")` with a literal, `require("x")`, `export ... from "x"`, TS `import x = require("x")`;
the names imported (`import {a} from`, `const {a} = require()`, `import * as ns` then `ns.a`)
become symbols to check. Names used through a default import, a `require()` binding or an
object built by calling one (`const app = express(); app.del()`) are instance symbols.
Values flow: what a package's function returns, `new` makes or `await` gives is followed through
variables (`const res = await axios.get(u); res.data`), destructuring, `this.x` fields, chains
(`a.b().c().d`), `.then(r => r.x)` callbacks, the parameters of callbacks given to a package's
function (`app.get("/", (req, res) => ...)`) and annotations naming a package's type (`res:
Response`), each use becoming a path of steps (a member, `()`, `new`, `await`, `:`, `arg`) that
the gate follows in the package's declarations. A name declared again in an inner scope (a
parameter, a local) shadows the package's value there. Method calls on a function's unannotated
parameter that no package value reaches are the answer's untyped uses (`UntypedUse`).
Relative paths, `#imports`, tsconfig aliases (`@/x`, `~/x`) are local; Node builtins, including
the `node:`-only ones, are builtins. tree-sitter is imported lazily: a host without it gets
`ParserUnavailable`, which the checker records as unverified instead of failing the sample.
Embedded: standard library only at module level.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..errors import HallubenchError
from .names import is_valid_npm_name, split_npm_specifier
from .references import Reference, UntypedUse, merge_symbols
from .stdlib_names import RUNTIME_PREFIXES, node_builtin

DIALECTS = ("javascript", "typescript", "tsx")
_CDN = re.compile(
    r"^https?://(?:esm\.sh|cdn\.skypack\.dev|unpkg\.com|cdn\.jsdelivr\.net/npm|ga\.jspm\.io/npm:)/?(?P<spec>.+)$"
)


class ParserUnavailable(HallubenchError, RuntimeError):
    """tree-sitter or a grammar is not installed on this host."""


@dataclass(frozen=True)
class JsExtraction:
    references: tuple[Reference, ...]
    partially_parsed: bool = False
    problems: tuple[str, ...] = field(default=())
    untyped_uses: tuple[UntypedUse, ...] = ()  # method calls on unannotated parameters (`app.del()` in `f(app)`)


@lru_cache(maxsize=4)
def _parser(dialect: str) -> Any:
    try:
        from tree_sitter import Language, Parser
    except ImportError as exc:
        raise ParserUnavailable(f"tree-sitter is not installed: {exc}") from exc
    try:
        if dialect == "javascript":
            import tree_sitter_javascript as grammar

            language = Language(grammar.language())
        else:
            import tree_sitter_typescript as ts_grammar

            capsule = ts_grammar.language_tsx() if dialect == "tsx" else ts_grammar.language_typescript()
            language = Language(capsule)
    except ImportError as exc:
        raise ParserUnavailable(f"tree-sitter grammar for {dialect} is not installed: {exc}") from exc
    return Parser(language)


def parser_available() -> bool:
    """True when tree-sitter and all three grammars import on this host."""
    try:
        for dialect in DIALECTS:
            _parser(dialect)
    except ParserUnavailable:
        return False
    return True


def _text(node: Any) -> str:
    return bytes(node.text).decode("utf-8", "replace")


def _string_value(node: Any) -> str | None:
    """The value of a string literal or a template literal without substitutions."""
    if node is None or node.type not in ("string", "template_string"):
        return None
    if any(child.type == "template_substitution" for child in node.children):
        return None
    raw = _text(node)
    return raw[1:-1] if len(raw) >= 2 else None


def classify_specifier(specifier: str) -> tuple[str, str, str | None, str]:
    """(classification, package, subpath, note) of a module specifier as written."""
    if specifier.startswith(("./", "../", "/")) or specifier in (".", ".."):
        return "local", specifier, None, "relative path"
    if specifier.startswith("#"):
        return "local", specifier, None, "package.json imports alias"
    if specifier.startswith(("@/", "~/", "$lib", "$app")) or specifier == "~":
        return "local", specifier, None, "path alias"
    if node_builtin(specifier):
        return "builtin", specifier, None, ""
    if specifier.startswith("node:"):
        return "builtin", specifier, None, "unknown node: builtin"
    if specifier.startswith("npm:"):
        specifier = specifier[len("npm:") :]
        specifier = re.sub(r"^(@?[^@/]+(?:/[^@/]+)?)@[^/]+", r"\1", specifier)
    elif specifier.startswith(RUNTIME_PREFIXES) or specifier.startswith("jsr:"):
        return "builtin", specifier, None, "runtime or registry scheme other than npm"
    cdn = _CDN.match(specifier)
    if cdn:
        specifier = re.sub(r"^(@?[^@/]+(?:/[^@/]+)?)@[^/]+", r"\1", cdn.group("spec"))
    elif "://" in specifier:
        return "local", specifier, None, "URL import"
    package, subpath = split_npm_specifier(specifier)
    if not is_valid_npm_name(package):
        return "local", specifier, None, "not a valid npm package name (alias?)"
    return "third-party", package, subpath, ""


class _Walker:
    def __init__(self, line_offset: int) -> None:
        self.line_offset = line_offset
        self.references: list[Reference] = []
        self.problems: list[str] = []
        self.namespace_aliases: dict[str, int] = {}
        self.weak_aliases: dict[str, int] = {}
        self.named_bindings: dict[str, tuple[int, str]] = {}  # local name -> (reference, export name)
        self.values: dict[str, list[tuple[Origin, Any]]] = {}  # variable (or `this.x`) -> [(origin, binding)]
        self.flow_uses: list[Origin] = []
        self.reassigned: set[str] = set()
        self.assigned_members: set[tuple[str, str]] = set()  # `app.x = ...` in the answer itself

    def add(self, node: Any, source: str, specifier: str, symbols: tuple[tuple[str, ...], ...] = ()) -> int:
        classification, package, subpath, note = classify_specifier(specifier)
        reference = Reference(
            ecosystem="npm",
            source=source,
            text=specifier,
            package=package,
            subpath=subpath,
            symbols=symbols if classification == "third-party" else (),
            line=node.start_point[0] + 1 + self.line_offset,
            classification=classification,
            note=note,
        )
        self.references.append(reference)
        return len(self.references) - 1

    def walk(self, root: Any) -> None:
        stack = [root]
        while stack:
            node = stack.pop()
            handler = getattr(self, f"on_{node.type}", None)
            if handler is not None:
                handler(node)
            stack.extend(reversed(node.children))

    def on_import_statement(self, node: Any) -> None:
        source = node.child_by_field_name("source")
        require_clause = next((c for c in node.children if c.type == "import_require_clause"), None)
        if require_clause is not None:
            spec = next((_string_value(c) for c in require_clause.children if c.type == "string"), None)
            name = next((c for c in require_clause.children if c.type == "identifier"), None)
            if spec is not None:
                index = self.add(node, "require", spec)
                if name is not None:
                    self.weak_aliases[_text(name)] = index
            return
        spec = _string_value(source)
        if spec is None:
            return
        type_only = any(c.type == "type" for c in node.children)
        clause = next((c for c in node.children if c.type == "import_clause"), None)
        symbols: list[tuple[str, ...]] = []
        bindings: list[tuple[str, str]] = []
        if clause is not None:
            for part in clause.children:
                if part.type == "identifier":
                    bindings.append(("weak", _text(part)))
                elif part.type == "namespace_import":
                    ident = next((c for c in part.children if c.type == "identifier"), None)
                    if ident is not None:
                        bindings.append(("namespace", _text(ident)))
                elif part.type == "named_imports":
                    for specifier in part.children:
                        if specifier.type != "import_specifier":
                            continue
                        name = specifier.child_by_field_name("name")
                        if name is not None and not any(c.type == "type" for c in specifier.children):
                            symbols.append((_text(name),))
                            alias = specifier.child_by_field_name("alias") or name
                            bindings.append(("named:" + _text(name), _text(alias)))
        index = self.add(node, "import", spec, () if type_only else tuple(symbols))
        for kind, alias in bindings:
            if kind.startswith("named:"):
                self.named_bindings[alias] = (index, kind[len("named:") :])
            else:
                (self.namespace_aliases if kind == "namespace" else self.weak_aliases)[alias] = index

    def on_export_statement(self, node: Any) -> None:
        spec = _string_value(node.child_by_field_name("source"))
        if spec is None:
            return
        symbols: list[tuple[str, ...]] = []
        for clause in node.children:
            if clause.type == "export_clause":
                for specifier in clause.children:
                    name = specifier.child_by_field_name("name") if specifier.type == "export_specifier" else None
                    if name is not None and _text(name) != "default":
                        symbols.append((_text(name),))
        self.add(node, "export-from", spec, tuple(symbols))

    def on_call_expression(self, node: Any) -> None:
        self.on_call_expression_then(node)
        self.on_callback_parameters(node)
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if function is None or arguments is None:
            return
        kind = "dynamic-import" if function.type == "import" else None
        if function.type == "identifier" and _text(function) == "require":
            kind = "require"
        if kind is None:
            return
        args = [c for c in arguments.children if c.is_named and c.type != "comment"]
        spec = _string_value(args[0]) if args else None
        if spec is None:
            self.problems.append(f"line {node.start_point[0] + 1 + self.line_offset}: non-literal {kind}")
            return
        symbols: tuple[tuple[str, ...], ...] = ()
        parent = node.parent
        if parent is not None and parent.type == "member_expression" and kind == "require":
            prop = parent.child_by_field_name("property")
            if prop is not None:
                symbols = ((_text(prop),),)
        index = self.add(node, kind, spec, symbols)
        declarator = parent
        while declarator is not None and declarator.type in ("await_expression", "parenthesized_expression"):
            declarator = declarator.parent
        if declarator is not None and declarator.type == "variable_declarator":
            self._bind_declarator(declarator, index)

    def _bind_declarator(self, declarator: Any, index: int) -> None:
        name = declarator.child_by_field_name("name")
        if name is None:
            return
        if name.type == "identifier":
            self.weak_aliases[_text(name)] = index
        elif name.type == "object_pattern":
            names: list[tuple[str, ...]] = []
            for part in name.children:
                if part.type == "shorthand_property_identifier_pattern":
                    names.append((_text(part),))
                    self.named_bindings[_text(part)] = (index, _text(part))
                elif part.type == "pair_pattern":
                    key = part.child_by_field_name("key")
                    value = part.child_by_field_name("value")
                    if key is not None and key.type in ("property_identifier", "identifier"):
                        names.append((_text(key),))
                        if value is not None and value.type == "identifier":
                            self.named_bindings[_text(value)] = (index, _text(key))
            reference = self.references[index]
            if reference.classification == "third-party":
                self.references[index] = reference.with_changes(symbols=merge_symbols(reference.symbols, tuple(names)))

    def on_variable_declarator(self, node: Any) -> None:
        """`const app = express()`, `const {data} = await get()`: remember where the value came from."""
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name is None or value is None or _is_module_load(value):
            self._bind_annotated(name, node.child_by_field_name("type"), name)
            return
        origin = self.origin_of(value)
        if origin is None:
            self._bind_annotated(name, node.child_by_field_name("type"), name)
            return
        if name.type == "identifier":
            self.bind(_text(name), origin, name)
        elif name.type == "object_pattern":
            for key, alias in _pattern_names(name):
                self.flow_uses.append(_extend(origin, key))
                if alias is not None:
                    self.bind(_text(alias), _extend(origin, key), alias)

    def on_for_in_statement(self, node: Any) -> None:
        """`for (const row of result.rows)`: each element of a package's array."""
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None or not any(c.type == "of" for c in node.children):
            return
        origin = self.origin_of(right)
        if origin is not None and left.type == "identifier":
            self.bind(_text(left), _extend(origin, "[]"), left)

    def on_public_field_definition(self, node: Any) -> None:
        """`class S { client = new Redis(); }`: the field's value, read later as `this.client`."""
        name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        origin = self.origin_of(value) if value is not None else None
        if origin is None and name is not None:
            origin = self.type_origin(node.child_by_field_name("type"))
        if name is not None and origin is not None:
            self.bind("this." + _text(name), origin, name)

    def on_required_parameter(self, node: Any) -> None:
        """`(res: Response)`, `(client: pg.Client)`: a parameter typed by a package's type."""
        pattern = node.child_by_field_name("pattern")
        self._bind_annotated(pattern, node.child_by_field_name("type"), pattern)

    def on_optional_parameter(self, node: Any) -> None:
        self.on_required_parameter(node)

    def _bind_annotated(self, name: Any, annotation: Any, binding: Any) -> None:
        origin = self.type_origin(annotation)
        if name is not None and name.type == "identifier" and origin is not None:
            self.bind(_text(name), origin, binding)

    def type_origin(self, annotation: Any) -> Origin | None:
        """The origin of an instance of a type the answer imported: `Request` -> ("Request", ":")."""
        node = annotation.named_children[-1] if annotation is not None and annotation.named_children else None
        if node is not None and node.type == "generic_type":
            node = node.child_by_field_name("name")
        if node is None:
            return None
        if node.type == "type_identifier":
            name = _text(node)
            if name in self.named_bindings:
                index, export = self.named_bindings[name]
                return index, (export, ":"), True
            if name in self.weak_aliases:
                return self.weak_aliases[name], (":",), False
            return None
        if node.type == "nested_type_identifier":
            head, *rest = _text(node).split(".")
            if not rest:
                return None
            if head in self.namespace_aliases:
                return self.namespace_aliases[head], (*rest, ":"), True
            if head in self.weak_aliases:
                return self.weak_aliases[head], (*rest, ":"), False
            if head in self.named_bindings:
                index, export = self.named_bindings[head]
                return index, (export, *rest, ":"), True
        return None

    def on_callback_parameters(self, node: Any) -> None:
        """`app.get("/", (req, res) => res.send())`: a callback's parameters are the package's values,
        of a type not followed here (the use is recorded, undecided)."""
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if function is None or arguments is None or _is_module_load(node):
            return
        prop = function.child_by_field_name("property") if function.type == "member_expression" else None
        if prop is not None and _text(prop) == "then":
            return
        callbacks = [
            a for a in arguments.named_children if a.type in ("arrow_function", "function_expression", "function")
        ]
        origin = self.origin_of(function) if callbacks else None
        if origin is None:
            return
        arguments_ = [a for a in arguments.named_children if a.type != "comment"]
        for callback in callbacks:
            single = callback.child_by_field_name("parameter")
            params = callback.child_by_field_name("parameters")
            listed = [single] if single is not None else (params.named_children if params is not None else [])
            for position, param in enumerate(p for p in listed if p.type != "comment"):
                if param.type == "required_parameter" and param.child_by_field_name("type") is None:
                    param = param.child_by_field_name("pattern")
                if param is not None and param.type == "identifier":
                    where = ("arg", f"#{arguments_.index(callback)}", f"#{position}")
                    self.bind(_text(param), (origin[0], (*origin[1], *where), origin[2]), param)

    def on_assignment_expression(self, node: Any) -> None:
        left = node.child_by_field_name("left")
        if left is None:
            return
        right = node.child_by_field_name("right")
        if left.type == "identifier":
            self.reassigned.add(_text(left))
        elif left.type == "member_expression":
            obj, prop = left.child_by_field_name("object"), left.child_by_field_name("property")
            if obj is not None and prop is not None and obj.type == "identifier":
                self.assigned_members.add((_text(obj), _text(prop)))
            elif obj is not None and prop is not None and obj.type == "this" and node.type == "assignment_expression":
                origin = self.origin_of(right) if right is not None and not _is_module_load(right) else None
                key = "this." + _text(prop)
                if origin is None or key in self.values:
                    self.reassigned.add(key)  # a field set to something else, or twice: not followed
                else:
                    self.bind(key, origin, prop)

    def on_augmented_assignment_expression(self, node: Any) -> None:
        self.on_assignment_expression(node)

    def origin_of(self, node: Any, depth: int = 0) -> Origin | None:
        """(reference, path, strong) of the value an expression gives, when it comes from a package.

        The path is rooted at the named export (strong) or at the `require()` / default binding
        (weak): `express()` -> ("()",); `new Foo()` with `{Foo}` imported -> ("Foo", "new");
        `(await axios.get(u)).data` -> ("get", "()", "await", "data"); a variable holding such a
        value gives its origin, unless the name is shadowed where it is used or reassigned.
        """
        if node is None or depth > _MAX_FLOW:
            return None
        kind = node.type
        if kind in ("parenthesized_expression", "non_null_expression", "as_expression", "satisfies_expression"):
            return self.origin_of(node.named_children[0] if node.named_children else None, depth + 1)
        if kind == "await_expression":
            inner = self.origin_of(node.named_children[0] if node.named_children else None, depth + 1)
            return _extend(inner, "await") if inner is not None else None
        if kind == "identifier":
            return self._origin_of_name(node)
        if kind == "member_expression":
            obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
            if obj is None or prop is None or prop.type != "property_identifier":
                return None
            if obj.type == "this":
                key = "this." + _text(prop)
                fields = self.values.get(key, [])
                return fields[0][0] if len(fields) == 1 and key not in self.reassigned else None
            if obj.type == "identifier" and (_text(obj), _text(prop)) in self.assigned_members:
                return None  # a property the answer sets itself
            if obj.type == "identifier" and _text(obj) in self.namespace_aliases and not self._shadowed(obj, None):
                return self.namespace_aliases[_text(obj)], (_text(prop),), True
            base = self.origin_of(obj, depth + 1)
            return _extend(base, _text(prop)) if base is not None else None
        if kind == "subscript_expression":  # `rows[0]` an element; `res["data"]` a member
            obj, index = node.child_by_field_name("object"), node.child_by_field_name("index")
            base = self.origin_of(obj, depth + 1)
            written = _string_value(index)
            if base is None or (index is not None and index.type in ("string", "template_string") and written is None):
                return None
            return _extend(base, written if written is not None else "[]")
        if kind in ("call_expression", "new_expression"):
            callee = node.child_by_field_name("function" if kind == "call_expression" else "constructor")
            if callee is None or callee.type == "import" or _is_module_load(node):
                return None
            base = self.origin_of(callee, depth + 1)
            return _extend(base, "()" if kind == "call_expression" else "new") if base is not None else None
        return None

    def _origin_of_name(self, node: Any) -> Origin | None:
        name = _text(node)
        if name in self.weak_aliases and not self._shadowed(node, None):
            return self.weak_aliases[name], (), False
        if name in self.named_bindings and not self._shadowed(node, None):
            index, export = self.named_bindings[name]
            return index, (export,), True
        for origin, binding in self.values.get(name, []):
            if not self._shadowed(node, binding):
                # A declared type holds whatever is assigned later; an inferred one only until reassigned.
                return origin if ":" in origin[1] or name not in self.reassigned else None
        return None

    def bind(self, name: str, origin: Origin, binding: Any) -> None:
        """A variable (or `this.x`) that holds a package's value from here on, declared at `binding`."""
        self.values.setdefault(name, []).append((origin, binding))

    def _shadowed(self, use: Any, binding: Any) -> bool:
        """Whether the nearest scope declaring the name at `use` declares it elsewhere than `binding`.

        `binding` None: the name is bound at the top (an import or `require()` binding), so any
        inner declaration shadows it.
        """
        name = _text(use)
        current = use.parent
        while current is not None:
            if current.type in _SCOPES:
                declared = [n for n in _declared_in(current) if _text(n) == name]
                if declared:
                    if binding is None:
                        return current.type != "program" and not any(_is_import_binding(n) for n in declared)
                    return not any(_same(n, binding) for n in declared)
            current = current.parent
        return False

    def on_call_expression_then(self, node: Any) -> None:
        """`get(u).then(res => res.data)`: the callback's first parameter is what the promise gives."""
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if function is None or arguments is None or function.type != "member_expression":
            return
        prop = function.child_by_field_name("property")
        if prop is None or _text(prop) != "then":
            return
        callback = next((c for c in arguments.named_children if c.type != "comment"), None)
        if callback is None or callback.type not in ("arrow_function", "function_expression", "function"):
            return
        origin = self.origin_of(function.child_by_field_name("object"))
        if origin is None:
            return
        param = callback.child_by_field_name("parameter")
        if param is None:
            params = callback.child_by_field_name("parameters")
            first = next((c for c in params.named_children if c.type != "comment"), None) if params else None
            param = first.child_by_field_name("pattern") if first is not None and first.type != "identifier" else first
        if param is not None and param.type == "identifier":
            self.bind(_text(param), _extend(origin, "await"), param)


Origin = tuple[int, tuple[str, ...], bool]
_MAX_FLOW = 24
_FLOW_STEPS = frozenset({"()", "new", "await", ":", "arg", "[]"})
_SCOPES = frozenset(
    {"program", "statement_block", "arrow_function", "function_declaration", "function_expression", "function",
     "method_definition", "generator_function_declaration", "generator_function", "for_in_statement",
     "for_statement", "catch_clause", "class_body"}
)  # fmt: skip
_BINDING_LEAVES = frozenset({"identifier", "shorthand_property_identifier_pattern"})


def _extend(origin: Origin, step: str) -> Origin:
    return origin[0], (*origin[1], step), origin[2]


def _same(a: Any, b: Any) -> bool:
    return bool(a.start_byte == b.start_byte and a.end_byte == b.end_byte)


def _is_module_load(node: Any) -> bool:
    """`require("x")` or `import("x")` (possibly awaited): bound as a module, not followed as a value."""
    while node is not None and node.type in ("await_expression", "parenthesized_expression"):
        node = node.named_children[0] if node.named_children else None
    if node is None or node.type != "call_expression":
        return False
    function = node.child_by_field_name("function")
    return function is not None and (function.type == "import" or _text(function) == "require")


def _is_import_binding(node: Any) -> bool:
    parent = node.parent
    while parent is not None and parent.type not in ("program", "statement_block"):
        if parent.type == "import_statement":
            return True
        if parent.type == "variable_declarator":
            value = parent.child_by_field_name("value")
            return value is not None and _is_module_load(value)
        parent = parent.parent
    return False


def _pattern_names(pattern: Any) -> Iterator[tuple[str, Any]]:
    """(key, local identifier or None) for each property an object pattern takes."""
    for part in pattern.named_children:
        if part.type == "shorthand_property_identifier_pattern":
            yield _text(part), part
        elif part.type == "object_assignment_pattern":
            left = part.child_by_field_name("left")
            if left is not None and left.type == "shorthand_property_identifier_pattern":
                yield _text(left), left
        elif part.type == "pair_pattern":
            key, value = part.child_by_field_name("key"), part.child_by_field_name("value")
            if key is not None and key.type in ("property_identifier", "identifier"):
                yield _text(key), value if value is not None and value.type == "identifier" else None


def _pattern_leaves(node: Any) -> Iterator[Any]:
    """Identifiers a binding pattern declares (not default values, not keys, not types)."""
    if node is None:
        return
    if node.type in _BINDING_LEAVES:
        yield node
        return
    if node.type in ("type_annotation", "property_identifier"):
        return
    for child in node.named_children:
        if node.type in ("assignment_pattern", "object_assignment_pattern") and child == node.child_by_field_name(
            "right"
        ):
            continue
        if node.type == "pair_pattern" and child == node.child_by_field_name("key"):
            continue
        yield from _pattern_leaves(child)


def _declared_in(scope: Any) -> Iterator[Any]:
    """Identifier nodes a scope declares directly: its parameters, locals, functions, classes, imports."""
    if scope.type in ("arrow_function", "function_declaration", "function_expression", "function", "method_definition",
                      "generator_function_declaration", "generator_function"):  # fmt: skip
        single = scope.child_by_field_name("parameter")
        yield from _pattern_leaves(single)
        params = scope.child_by_field_name("parameters")
        for param in params.named_children if params is not None else []:
            yield from _pattern_leaves(param.child_by_field_name("pattern") or param)
        return
    if scope.type == "catch_clause":
        yield from _pattern_leaves(scope.child_by_field_name("parameter"))
        return
    if scope.type == "for_in_statement":
        yield from _pattern_leaves(scope.child_by_field_name("left"))
        return
    for child in scope.named_children:
        statement = child.named_children[0] if child.type == "export_statement" and child.named_children else child
        if statement.type == "for_statement":
            continue
        if statement.type in ("lexical_declaration", "variable_declaration"):
            for declarator in statement.named_children:
                if declarator.type == "variable_declarator":
                    yield from _pattern_leaves(declarator.child_by_field_name("name"))
        elif statement.type in ("function_declaration", "class_declaration", "generator_function_declaration"):
            name = statement.child_by_field_name("name")
            if name is not None:
                yield name
        elif statement.type == "import_statement":
            yield from (n for n in _import_leaves(statement))
    if scope.type == "for_statement":
        init = scope.child_by_field_name("initializer")
        if init is not None:
            for declarator in init.named_children:
                if declarator.type == "variable_declarator":
                    yield from _pattern_leaves(declarator.child_by_field_name("name"))


def _import_leaves(statement: Any) -> Iterator[Any]:
    stack = list(statement.named_children)
    while stack:
        node = stack.pop()
        if node.type == "identifier" and node.parent is not None and node.parent.type != "import_specifier":
            yield node
        elif node.type == "import_specifier":
            alias = node.child_by_field_name("alias") or node.child_by_field_name("name")
            if alias is not None:
                yield alias
        else:
            stack.extend(node.named_children)


def _member_chains(root: Any) -> Iterator[tuple[Any, list[str]]]:
    """Outermost `a.b.c` member expressions as (root identifier node, [b, c])."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "member_expression" and (
            node.parent is None
            or node.parent.type != "member_expression"
            or node.parent.child_by_field_name("object") != node
        ):
            parts: list[str] = []
            current = node
            while current is not None and current.type == "member_expression":
                prop = current.child_by_field_name("property")
                if prop is None or prop.type not in ("property_identifier", "private_property_identifier"):
                    parts = []
                    break
                parts.append(_text(prop))
                current = current.child_by_field_name("object")
            if parts and current is not None and current.type == "identifier":
                yield current, parts[::-1]
        stack.extend(reversed(node.children))


def _attach_chains(walker: _Walker, root: Any) -> None:
    """Member uses become symbols: rooted at a named export (strong) or at the module binding (weak)."""
    strong: dict[int, list[tuple[str, ...]]] = {}
    weak: dict[int, list[tuple[str, ...]]] = {}
    for node, parts in _member_chains(root):
        name = _text(node)
        if (name, parts[0]) in walker.assigned_members:
            continue  # a property the answer sets itself
        if walker._shadowed(node, None):
            continue  # a parameter or local of the same name, not the package
        if name in walker.namespace_aliases:
            strong.setdefault(walker.namespace_aliases[name], []).append(tuple(parts[:1]))
        elif name in walker.weak_aliases:
            weak.setdefault(walker.weak_aliases[name], []).append(tuple(parts[:1]))
        elif name in walker.named_bindings:
            index, export = walker.named_bindings[name]
            strong.setdefault(index, []).append((export, parts[0]))
    for index, path, is_strong in _flow_uses(walker, root):
        (strong if is_strong else weak).setdefault(index, []).append(path)
    for index, reference in enumerate(walker.references):
        if reference.classification != "third-party":
            continue
        walker.references[index] = reference.with_changes(
            symbols=merge_symbols(reference.symbols, tuple(strong.get(index, ()))),
            instance_symbols=merge_symbols(reference.instance_symbols, tuple(weak.get(index, ()))),
        )


def _flow_uses(walker: _Walker, root: Any) -> list[Origin]:
    """Member uses on values a package gave back (through calls, `new`, `await`, variables, fields).

    A path that another one of the same reference continues is dropped: following the longer one
    judges every step of it (a call given a callback stays: the callback's parameters are other
    values). Plain `module.name` chains are the alias rules' (one link).
    """
    found: list[Origin] = list(walker.flow_uses)
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.children))
        if node.type != "member_expression":
            continue
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        if obj is None or prop is None or prop.type != "property_identifier":
            continue
        parent = node.parent
        if parent is not None and parent.type == "assignment_expression" and parent.child_by_field_name("left") == node:
            continue  # the answer sets the property itself
        origin = walker.origin_of(obj)
        if origin is None:
            continue
        through_value = obj.type == "this" or (obj.type == "identifier" and _text(obj) in walker.values)
        if not through_value and not any(step in _FLOW_STEPS for step in origin[1]):
            continue
        if obj.type == "identifier" and (_text(obj), _text(prop)) in walker.assigned_members:
            continue
        found.append(_extend(origin, _text(prop)))
    unique = list(dict.fromkeys(found))
    return [use for use in unique if not any(_continues(o, use) for o in unique)]


def _continues(longer: Origin, use: Origin) -> bool:
    """`longer` follows `use` further on the same value (a callback's parameter is another value)."""
    size = len(use[1])
    return longer[0] == use[0] and len(longer[1]) > size and longer[1][:size] == use[1] and longer[1][size] != "arg"


_FUNCTIONS = frozenset(
    {"arrow_function", "function_declaration", "function_expression", "function", "method_definition",
     "generator_function_declaration", "generator_function"}
)  # fmt: skip


def _untyped_uses(walker: _Walker, root: Any) -> list[UntypedUse]:
    """Method calls on a function's unannotated parameter that no package value reaches (`function f(app)`)."""
    out: list[UntypedUse] = []
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.children))
        if node.type != "call_expression":
            continue
        function = node.child_by_field_name("function")
        if function is None or function.type != "member_expression":
            continue
        obj, prop = function.child_by_field_name("object"), function.child_by_field_name("property")
        if obj is None or prop is None or obj.type != "identifier" or prop.type != "property_identifier":
            continue
        if walker.origin_of(obj) is not None or not _is_untyped_parameter(obj):
            continue
        line = node.start_point[0] + 1 + walker.line_offset
        out.append(UntypedUse("npm", _text(prop), _text(obj), line))
    return out


def _is_untyped_parameter(use: Any) -> bool:
    """The nearest declaration of the name is a function's parameter written without a type."""
    name = _text(use)
    current = use.parent
    while current is not None:
        if current.type in _SCOPES:
            declared = [n for n in _declared_in(current) if _text(n) == name]
            if declared:
                parent = declared[0].parent
                typed = parent is not None and parent.child_by_field_name("type") is not None
                return current.type in _FUNCTIONS and not typed
        current = current.parent
    return False


def _error_count(tree: Any) -> int:
    count = 0
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            count += 1
        stack.extend(node.children)
    return count


_FALLBACK = re.compile(
    r"""(?:^|[\s;(=,])(?:
        import\s+(?:type\s+)?(?P<clause>[\w$*{},\s]+?)\s+from\s*(?P<q1>['"])(?P<s1>[^'"]+)(?P=q1)
      | import\s*(?P<q2>['"])(?P<s2>[^'"]+)(?P=q2)
      | export\s+(?:\*(?:\s+as\s+[\w$]+)?|\{[^}]*\})\s*from\s*(?P<q3>['"])(?P<s3>[^'"]+)(?P=q3)
      | (?P<kind>require|import)\s*\(\s*(?P<q4>['"`])(?P<s4>[^'"`$]+)(?P=q4)\s*\)
    )""",
    re.VERBOSE,
)


def extract_js_fallback(code: str, *, line_offset: int = 0) -> JsExtraction:
    """Import specifiers read line by line, for hosts without tree-sitter (flagged partially parsed)."""
    references: list[Reference] = []
    for number, line in enumerate(code.splitlines(), start=1):
        for match in _FALLBACK.finditer(line):
            if match.group("s1"):
                spec, source = match.group("s1"), "import"
                names = re.findall(r"([\w$]+)(?:\s+as\s+[\w$]+)?", re.sub(r"^[^{]*\{|\}.*$", "", match.group("clause")))
                symbols = tuple((n,) for n in names) if "{" in match.group("clause") else ()
            elif match.group("s2"):
                spec, source, symbols = match.group("s2"), "import", ()
            elif match.group("s3"):
                spec, source, symbols = match.group("s3"), "export-from", ()
            else:
                spec = match.group("s4")
                source = "require" if match.group("kind") == "require" else "dynamic-import"
                symbols = ()
            classification, package, subpath, note = classify_specifier(spec)
            references.append(
                Reference(
                    ecosystem="npm",
                    source=source,
                    text=spec,
                    package=package,
                    subpath=subpath,
                    symbols=symbols if classification == "third-party" else (),
                    line=number + line_offset,
                    classification=classification,
                    partially_parsed=True,
                    note=note,
                )
            )
    return JsExtraction(tuple(references), partially_parsed=True, problems=("read without tree-sitter",))


def extract_js(code: str, *, dialect: str = "javascript", line_offset: int = 0) -> JsExtraction:
    """All references in one JS/TS block; raises ParserUnavailable without tree-sitter."""
    if dialect not in DIALECTS:
        raise ValueError(f"dialect must be one of {DIALECTS}, not {dialect!r}")
    source = code.encode("utf-8")
    order = [dialect] + [d for d in ("tsx", "typescript", "javascript") if d != dialect]
    best: tuple[int, Any] | None = None
    for candidate in order:
        tree = _parser(candidate).parse(source)
        errors = _error_count(tree) if tree.root_node.has_error else 0
        if best is None or errors < best[0]:
            best = (errors, tree)
        if errors == 0:
            break
    assert best is not None
    errors, tree = best
    walker = _Walker(line_offset)
    walker.walk(tree.root_node)
    _attach_chains(walker, tree.root_node)
    problems = list(walker.problems)
    if errors:
        problems.append(f"{errors} syntax error node(s); references outside them were kept")
    partially = errors > 0
    references = (
        tuple(r.with_changes(partially_parsed=True) for r in walker.references)
        if partially
        else tuple(walker.references)
    )
    return JsExtraction(
        references,
        partially_parsed=partially,
        problems=tuple(problems),
        untyped_uses=tuple(_untyped_uses(walker, tree.root_node)),
    )
