"""TypeScript declaration files (`.d.ts`) read into scopes of named declarations, without a checker.

One file becomes a root scope (a module, or a script whose names are global), plus the blocks it
holds: `declare module "x" {...}` (ambient modules and augmentations), `declare global {...}`
and namespace bodies, each mapping names to their declarations (interfaces and namespaces
merge across several), with the file's imports, exports, `export *` and `export =`. Nothing is
resolved here; `dts` does that. TypeScript syntax newer than the grammar in use (variance and
`const` modifiers on type parameters) is blanked first, names unchanged; a file that still has
syntax errors is marked unreadable as a whole. tree-sitter is imported lazily. Embedded:
standard library only at module level.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .npm_tarball import NpmPackageFiles


@lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter_typescript
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_typescript.language_typescript()))


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", errors="replace"))


def _string(node: Any) -> str | None:
    if node is None or node.type != "string":
        return None
    inner = _text(node)
    return inner[1:-1] if len(inner) >= 2 else None


# ---------------------------------------------------------------------- declarations and scopes
@dataclass
class Decl:
    """One declaration of a name in a scope (interfaces and namespaces merge across several)."""

    kind: str  # interface | class | type | enum | function | var | namespace | import | alias | unreadable
    name: str
    node: Any
    scope: Scope
    spec: str | None = None  # import source
    imported: str | None = None  # "*" | "default" | a name, for ES imports; for aliases: a dotted target
    body: Scope | None = None  # namespaces
    module: ModuleView | None = None  # whole-module imports (`import * as m`, `import m = require()`)
    merged: list[Scope] = field(default_factory=list)  # augmentations merged into a namespace (`export =`)

    @property
    def bodies(self) -> list[Scope]:
        return ([self.body] if self.body is not None else []) + self.merged


class Scope:
    """Names declared in a file, an ambient module block, a namespace body or a global block."""

    def __init__(self, kind: str, file: DtsFile, parent: Scope | None, label: str) -> None:
        self.kind = kind  # "module" | "script" | "ambient" | "namespace" | "global"
        self.file = file
        self.parent = parent
        self.label = label
        self.names: dict[str, list[Decl]] = {}
        self.exports: dict[str, list[tuple[str, str | None]]] = {}  # name -> [(local name or imported, spec)]
        self.stars: list[str] = []
        self.export_equals: Any = None
        self.has_exports = False
        self.merged_with: list[Scope] = []  # the other declarations of a module this block augments

    def add(self, decl: Decl) -> None:
        self.names.setdefault(decl.name, []).append(decl)

    def export(self, name: str, local: str, spec: str | None = None) -> None:
        self.has_exports = True
        self.exports.setdefault(name, []).append((local, spec))


@dataclass
class DtsFile:
    package: NpmPackageFiles
    path: str
    root: Scope | None = None
    ambient: list[tuple[str, Scope]] = field(default_factory=list)  # `declare module "x"` blocks
    globals: list[Scope] = field(default_factory=list)  # `declare global` blocks and script files

    @property
    def key(self) -> tuple[str, str]:
        return (self.package.name, self.path)


@dataclass
class ModuleView:
    label: str
    scopes: list[Scope]
    file: DtsFile | None


# ---------------------------------------------------------------------- reading one file
_VARIANCE = re.compile(r"([<,]\s*(?:/\*(?:[^*]|\*(?!/))*\*/\s*)?)((?:in\s+out|in|out|const)\s+)(?=[A-Za-z_$])")


def without_type_parameter_modifiers(text: str) -> str:
    """`<out T>`, `<in out T>`, `<const T>` (TS 4.7/5.0) blanked: the grammar in use rejects them, names stay."""
    return _VARIANCE.sub(lambda m: m.group(1) + " " * len(m.group(2)), text)


def _read_file(file: DtsFile) -> None:
    text = without_type_parameter_modifiers(file.package.texts.get(file.path, ""))
    tree = _parser().parse(text.encode("utf-8"))
    root = tree.root_node
    is_module = any(c.type in ("import_statement", "export_statement", "import_alias") for c in root.named_children)
    file.root = Scope("module" if is_module else "script", file, None, file.path)
    _read_block(file, file.root, root.named_children)
    if not is_module:
        file.globals.append(file.root)
    if root.has_error:
        file.root.add(Decl("unreadable", "*", root, file.root))


def _unwrap(node: Any) -> Any:
    while node is not None and node.type in ("ambient_declaration", "expression_statement") and node.named_children:
        if node.type == "ambient_declaration" and node.named_children[0].type == "statement_block":
            return node
        node = node.named_children[0]
    return node


def _read_block(file: DtsFile, scope: Scope, statements: Iterable[Any]) -> None:
    pending_global = False
    for raw in statements:
        if raw.type == "comment":
            continue
        if pending_global and raw.type == "statement_block":  # `global { ... }` inside `declare module`
            _read_global(file, raw)
            pending_global = False
            continue
        pending_global = raw.type == "expression_statement" and _text(raw).strip().rstrip(";") == "global"
        if pending_global:
            continue
        if raw.type == "ambient_declaration" and raw.named_children and raw.named_children[0].type == "statement_block":
            if _text(raw).lstrip().startswith(("declare global", "global")):
                _read_global(file, raw.named_children[0])
            continue
        node = _unwrap(raw)
        if node is None:
            continue
        if node.type == "export_statement":
            _read_export(file, scope, node)
            continue
        if node.type == "import_statement":
            _read_import(scope, node)
            continue
        if node.type == "import_alias":
            ident = next((c for c in node.named_children if c.type == "identifier"), None)
            target = node.named_children[-1] if node.named_children else None
            if ident is not None and target is not None:
                scope.add(Decl("alias", _text(ident), node, scope, imported=_text(target)))
            continue
        if node.type == "module" and _string(node.child_by_field_name("name")) is not None:
            spec = _string(node.child_by_field_name("name")) or ""
            block = Scope("ambient", file, None, f'module "{spec}"')
            body = node.child_by_field_name("body")
            if body is not None:
                _read_block(file, block, body.named_children)
            file.ambient.append((spec, block))
            continue
        for decl in _declarations(node, scope):
            scope.add(decl)


def _read_global(file: DtsFile, block_node: Any) -> None:
    block = Scope("global", file, None, f"{file.path} (global)")
    file.globals.append(block)
    _read_block(file, block, block_node.named_children)


def _declarations(node: Any, scope: Scope) -> list[Decl]:
    kind = {
        "interface_declaration": "interface",
        "class_declaration": "class",
        "abstract_class_declaration": "class",
        "type_alias_declaration": "type",
        "enum_declaration": "enum",
        "function_signature": "function",
        "function_declaration": "function",
        "generator_function_declaration": "function",
    }.get(node.type)
    if kind is not None:
        name = node.child_by_field_name("name")
        return [Decl(kind, _text(name), node, scope)] if name is not None else []
    if node.type in ("lexical_declaration", "variable_declaration"):
        out: list[Decl] = []
        for declarator in node.named_children:
            if declarator.type == "variable_declarator":
                name = declarator.child_by_field_name("name")
                if name is not None and name.type == "identifier":
                    out.append(Decl("var", _text(name), declarator, scope))
        return out
    if node.type in ("internal_module", "module"):
        name = node.child_by_field_name("name")
        if name is None:
            return []
        parts = _text(name).split(".")
        body_node = node.child_by_field_name("body")
        outer = Decl("namespace", parts[0], node, scope)
        current, holder = outer, scope
        for part in parts[1:]:  # `namespace A.B {}` is `namespace A { namespace B {} }`
            middle = Scope("namespace", scope.file, holder, f"{holder.label}.{current.name}")
            current.body = middle
            inner = Decl("namespace", part, node, middle)
            middle.add(inner)
            current, holder = inner, middle
        current.body = Scope("namespace", scope.file, holder, _text(name))
        if body_node is not None:
            _read_block(scope.file, current.body, body_node.named_children)
        return [outer]
    return []


def _read_import(scope: Scope, node: Any) -> None:
    source = _string(node.child_by_field_name("source"))
    require = next((c for c in node.named_children if c.type == "import_require_clause"), None)
    if require is not None:
        ident = next((c for c in require.named_children if c.type == "identifier"), None)
        spec = next((_string(c) for c in require.named_children if c.type == "string"), None)
        if ident is not None and spec is not None:
            scope.add(Decl("import", _text(ident), node, scope, spec=spec, imported="="))
        return
    clause = next((c for c in node.named_children if c.type == "import_clause"), None)
    if clause is None or source is None:
        return
    for part in clause.named_children:
        if part.type == "identifier":
            scope.add(Decl("import", _text(part), node, scope, spec=source, imported="default"))
        elif part.type == "namespace_import":
            ident = next((c for c in part.named_children if c.type == "identifier"), None)
            if ident is not None:
                scope.add(Decl("import", _text(ident), node, scope, spec=source, imported="*"))
        elif part.type == "named_imports":
            for spec_node in part.named_children:
                if spec_node.type != "import_specifier":
                    continue
                name = spec_node.child_by_field_name("name")
                alias = spec_node.child_by_field_name("alias") or name
                if name is not None and alias is not None:
                    scope.add(Decl("import", _text(alias), node, scope, spec=source, imported=_text(name)))


def _read_export(file: DtsFile, scope: Scope, node: Any) -> None:
    tokens = [c.type for c in node.children]
    declaration = node.child_by_field_name("declaration")
    source = _string(node.child_by_field_name("source"))
    if "=" in tokens and declaration is None:  # `export = X`
        scope.export_equals = node.named_children[-1] if node.named_children else None
        scope.has_exports = True
        return
    if "namespace" in tokens and source is None and declaration is None:  # `export as namespace X`
        return
    if declaration is not None:
        inner = _unwrap(declaration)
        decls = _declarations(inner, scope) if inner is not None else []
        for decl in decls:
            scope.add(decl)
            scope.export("default" if "default" in tokens else decl.name, decl.name)
        if "default" in tokens and not decls:
            scope.export("default", "")
        return
    if "default" in tokens:
        value = node.named_children[-1] if node.named_children else None
        scope.export("default", _text(value) if value is not None and value.type == "identifier" else "")
        return
    clause = next((c for c in node.named_children if c.type == "export_clause"), None)
    namespace = next((c for c in node.named_children if c.type == "namespace_export"), None)
    if clause is not None:
        for spec_node in clause.named_children:
            if spec_node.type != "export_specifier":
                continue
            name = spec_node.child_by_field_name("name")
            alias = spec_node.child_by_field_name("alias") or name
            if name is not None and alias is not None:
                scope.export(_text(alias).strip("'\""), _text(name).strip("'\""), source)
        if not clause.named_children:
            scope.has_exports = True  # `export {}`: marks a module
        return
    if namespace is not None and source is not None:
        ident = next((c for c in namespace.named_children if c.type in ("identifier", "string")), None)
        if ident is not None:
            scope.export(_text(ident).strip("'\""), "*", source)
        return
    if source is not None:
        scope.stars.append(source)
        scope.has_exports = True
