"""JavaScript/TypeScript/JSX references from one block of code, with tree-sitter.

Node's own lexers fail on JSX and ignore `require()`, so model answers are parsed with
tree-sitter's JavaScript, TypeScript and TSX grammars. Collected: static `import`, dynamic
`import("x")` with a literal, `require("x")`, `export ... from "x"`, TS `import x = require("x")`;
the names imported (`import {a} from`, `const {a} = require()`, `import * as ns` then `ns.a`)
become symbols to check. Names used through a default import, a `require()` binding or an
object built by calling one (`const app = express(); app.del()`) are instance symbols: they
may legitimately be properties the lexers cannot see, so they are never called missing.
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

from .names import is_valid_npm_name, split_npm_specifier
from .references import Reference, merge_symbols
from .stdlib_names import RUNTIME_PREFIXES, node_builtin

DIALECTS = ("javascript", "typescript", "tsx")
_CDN = re.compile(
    r"^https?://(?:esm\.sh|cdn\.skypack\.dev|unpkg\.com|cdn\.jsdelivr\.net/npm|ga\.jspm\.io/npm:)/?(?P<spec>.+)$"
)


class ParserUnavailable(RuntimeError):
    """tree-sitter or a grammar is not installed on this host."""


@dataclass(frozen=True)
class JsExtraction:
    references: tuple[Reference, ...]
    partially_parsed: bool = False
    problems: tuple[str, ...] = field(default=())


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
        self.instances: dict[str, tuple[int, tuple[str, ...], bool]] = {}  # name -> (reference, path, strong)
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
        """`const app = express()`, `const s = new Foo()`: remember what built the object."""
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name is None or value is None or name.type != "identifier":
            return
        built = self.built_by(value)
        if built is not None:
            self.instances[_text(name)] = built

    def on_assignment_expression(self, node: Any) -> None:
        left = node.child_by_field_name("left")
        if left is None:
            return
        if left.type == "identifier":
            self.reassigned.add(_text(left))
        elif left.type == "member_expression":
            obj, prop = left.child_by_field_name("object"), left.child_by_field_name("property")
            if obj is not None and prop is not None and obj.type == "identifier":
                self.assigned_members.add((_text(obj), _text(prop)))

    def on_augmented_assignment_expression(self, node: Any) -> None:
        self.on_assignment_expression(node)

    def built_by(self, value: Any) -> tuple[int, tuple[str, ...], bool] | None:
        """(reference, path, strong) for a call or `new` of something imported: the object's origin.

        The path is rooted at the named export (strong) or at the `require()` / default binding
        (weak): `express()` -> ("()",); `new Foo()` with `{Foo}` imported -> ("Foo", "new");
        `new ns.Server()` -> ("Server", "new"); `new ws()` -> ("new",).
        """
        while value is not None and value.type in ("await_expression", "parenthesized_expression"):
            value = value.named_children[0] if value.named_children else None
        if value is None or value.type not in ("call_expression", "new_expression"):
            return None
        callee = value.child_by_field_name("function" if value.type == "call_expression" else "constructor")
        step = "()" if value.type == "call_expression" else "new"
        if callee is None:
            return None
        if callee.type == "identifier":
            alias = _text(callee)
            if alias in self.weak_aliases:
                return self.weak_aliases[alias], (step,), False
            if alias in self.named_bindings:
                index, export = self.named_bindings[alias]
                return index, (export, step), True
            return None
        if callee.type == "member_expression":
            obj, prop = callee.child_by_field_name("object"), callee.child_by_field_name("property")
            if obj is None or prop is None or obj.type != "identifier" or prop.type != "property_identifier":
                return None
            root = _text(obj)
            if root in self.namespace_aliases:
                return self.namespace_aliases[root], (_text(prop), step), True
            if root in self.weak_aliases:
                return self.weak_aliases[root], (_text(prop), step), False
        return None


def _member_chains(root: Any) -> Iterator[tuple[str, list[str]]]:
    """Outermost `a.b.c` member expressions as (root name, [b, c])."""
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
                yield _text(current), parts[::-1]
        stack.extend(reversed(node.children))


def _attach_chains(walker: _Walker, root: Any) -> None:
    """Member uses become symbols: rooted at a named export (strong) or at the module binding (weak)."""
    strong: dict[int, list[tuple[str, ...]]] = {}
    weak: dict[int, list[tuple[str, ...]]] = {}
    for name, parts in _member_chains(root):
        if (name, parts[0]) in walker.assigned_members:
            continue  # a property the answer sets itself
        if name in walker.namespace_aliases:
            strong.setdefault(walker.namespace_aliases[name], []).append(tuple(parts[:1]))
        elif name in walker.weak_aliases:
            weak.setdefault(walker.weak_aliases[name], []).append(tuple(parts[:1]))
        elif name in walker.named_bindings:
            index, export = walker.named_bindings[name]
            strong.setdefault(index, []).append((export, parts[0]))
        elif name in walker.instances and name not in walker.reassigned:
            index, path, is_strong = walker.instances[name]
            (strong if is_strong else weak).setdefault(index, []).append((*path, parts[0]))
    for built, member in _built_member_uses(walker, root):
        index, path, is_strong = built
        (strong if is_strong else weak).setdefault(index, []).append((*path, member))
    for index, reference in enumerate(walker.references):
        if reference.classification != "third-party":
            continue
        walker.references[index] = reference.with_changes(
            symbols=merge_symbols(reference.symbols, tuple(strong.get(index, ()))),
            instance_symbols=merge_symbols(reference.instance_symbols, tuple(weak.get(index, ()))),
        )


def _built_member_uses(walker: _Walker, root: Any) -> Iterator[tuple[tuple[int, tuple[str, ...], bool], str]]:
    """`express().listen(...)`, `new Foo().run()`: a member used directly on a call or `new` result."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "member_expression":
            obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
            if obj is not None and prop is not None and prop.type == "property_identifier":
                built = walker.built_by(obj)
                if built is not None:
                    yield built, _text(prop)
        stack.extend(reversed(node.children))


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
    return JsExtraction(references, partially_parsed=partially, problems=tuple(problems))
