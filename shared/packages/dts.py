"""What TypeScript declarations (`.d.ts`) say a value has: exports, members, call and `new` results.

Many of the most used npm packages cannot be read from their JavaScript: lodash and jQuery are
UMD bundles that fill their object in a loop, Express builds its app by mixing prototypes into a
function, axios creates its default export at run time. Their published declarations say what
users can reach, and this module reads them the way the TypeScript checker would, for names:

* modules: ES exports (`export`, `export {a as b} from`, `export *`, `export * as ns`, `export
  default`), `export = X` (lodash's `export = _` with `declare const _: _.LoDashStatic`), module
  augmentations (`declare module "../index" { interface LoDashStatic {...} }` in any file of the
  package), ambient modules (`declare module "events"` in @types/node) and `declare global`;
* values: namespaces merged with functions and classes (`declare function e(); declare
  namespace e {...}`), a `const` typed by an interface, class statics, enums;
* types: interfaces (every merged declaration, `extends` followed), classes (instance side,
  `extends` followed), object types, `&` and `|`, `typeof X`, aliases, imports from other files
  and packages (`import * as core from "express-serve-static-core"` reads @types/...);
* what calling a value returns (`express()` -> `core.Express`) and what `new` makes.

A member set is *complete* only when every part of it was read; anything else (a mapped,
conditional or generic type, an index signature, `any`, a type from a package that could not be
loaded) makes it incomplete, and an incomplete set never lets a name be called missing. Every
object has the members of `Object.prototype` and every function those of `Function.prototype`.
tree-sitter is imported lazily. Embedded: standard library only at module level.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .npm_tarball import NpmPackageFiles
from .stdlib_names import node_builtin

OBJECT_MEMBERS = frozenset(
    {"constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable", "toLocaleString", "toString",
     "valueOf", "__proto__", "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__"}
)  # fmt: skip
FUNCTION_MEMBERS = frozenset({"apply", "bind", "call", "length", "name", "arguments", "caller", "prototype"})
MAX_DEPTH = 24
_DTS = (".d.ts", ".d.mts", ".d.cts")
_AMBIENT = re.compile(r"""declare\s+module\s+['"]([^'"]+)['"]""")
_TYPES_REFERENCE = re.compile(r"""///\s*<reference\s+types=['"]([^'"]+)['"]""")
_PATH_REFERENCE = re.compile(r"""///\s*<reference\s+path=['"]([^'"]+)['"]""")
_VALUE_KINDS = frozenset({"var", "function", "class", "enum", "namespace"})
_EMPTY_TYPES = frozenset({"null", "undefined", "void", "never"})

PackageLoader = Callable[[str, str | None], Awaitable[NpmPackageFiles | None]]


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


# ---------------------------------------------------------------------- member sets
@dataclass
class Members:
    """Names a value or type has, whether that list is complete, and what calling or `new` gives."""

    names: set[str] = field(default_factory=set)
    complete: bool = True
    notes: list[str] = field(default_factory=list)
    calls: list[TypeRef] = field(default_factory=list)
    constructs: list[TypeRef] = field(default_factory=list)
    classes: list[Decl] = field(default_factory=list)  # classes whose instances `new` makes
    slots: dict[str, list[tuple[str, Any]]] = field(default_factory=dict)  # name -> where its value is declared

    def slot(self, name: str, kind: str, payload: Any) -> None:
        self.names.add(name)
        self.slots.setdefault(name, []).append((kind, payload))

    def unknown(self, note: str) -> Members:
        self.complete = False
        if note not in self.notes and len(self.notes) < 6:
            self.notes.append(note)
        return self

    def absorb(self, other: Members) -> None:
        self.names |= other.names
        for name, slots in other.slots.items():
            self.slots.setdefault(name, []).extend(slots)
        self.calls.extend(other.calls)
        self.constructs.extend(other.constructs)
        self.classes.extend(other.classes)
        if not other.complete:
            self.complete = False
            for note in other.notes:
                if note not in self.notes and len(self.notes) < 6:
                    self.notes.append(note)

    def why(self) -> str:
        return "; ".join(self.notes) or "declarations not fully readable"


@dataclass(frozen=True)
class TypeRef:
    node: Any
    scope: Scope


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


# ---------------------------------------------------------------------- the world
class DeclarationWorld:
    """The declarations of one package and of whatever packages its types import, loaded on demand."""

    def __init__(self, loader: PackageLoader) -> None:
        self.loader = loader
        self.packages: dict[str, NpmPackageFiles | None] = {}
        self.files: dict[tuple[str, str], DtsFile] = {}
        self.loaded_notes: list[str] = []
        self._globals: dict[str, list[Decl]] = {}

    def add_package(self, pkg: NpmPackageFiles) -> None:
        if self.packages.get(pkg.name) is None:
            self.packages[pkg.name] = pkg
            self._globals.clear()  # a new package may declare more global names

    async def package(self, name: str, wanted: str | None = None) -> NpmPackageFiles | None:
        if name not in self.packages:
            loaded = await self.loader(name, wanted)
            if loaded is None:
                self.packages[name] = None
                self.loaded_notes.append(f"types of {name} could not be loaded")
            else:
                self.add_package(loaded)
        return self.packages[name]

    def file(self, pkg: NpmPackageFiles, path: str) -> DtsFile:
        self.add_package(pkg)
        key = (pkg.name, path)
        if key not in self.files:
            dts = pkg.parsed.get(path)  # a package's files read once per run (it is cached, immutable)
            if not isinstance(dts, DtsFile):
                dts = DtsFile(pkg, path)
                _read_file(dts)
                pkg.parsed[path] = dts
            self.files[key] = dts
        return self.files[key]

    # ------------------------------------------------------------------ modules
    async def entry(self, pkg: NpmPackageFiles, path: str) -> ModuleView:
        return await self._module_of_file(self.file(pkg, path))

    async def _module_of_file(self, dts: DtsFile) -> ModuleView:
        scopes = [dts.root] if dts.root is not None else []
        augmenting = await self._augmentations(dts.package, lambda spec, origin: self._resolves_to(spec, origin, dts))
        scopes += augmenting
        for block in augmenting:  # names declared in one augmentation are visible in the others
            block.merged_with = [s for s in scopes if s is not block]
        root = dts.root
        if root is not None and root.export_equals is not None and root.export_equals.type == "identifier":
            # Augmenting a module that says `export = X` merges into namespace X (lodash's LoDashStatic).
            for decl in root.names.get(_text(root.export_equals), []):
                if decl.kind == "namespace":
                    decl.merged.extend(s for s in augmenting if s not in decl.merged)
        for ref in _PATH_REFERENCE.findall(dts.package.texts.get(dts.path, "")):
            target = _dts_path(dts.package, posixpath.join(posixpath.dirname(dts.path), ref))
            if target is not None and target != dts.path:
                referenced = self.file(dts.package, target)
                scopes.extend(s for s in referenced.globals if s not in scopes)
        return ModuleView(f"{dts.package.name}/{dts.path}", scopes, dts)

    def _resolves_to(self, spec: str, origin: DtsFile, target: DtsFile) -> bool:
        if not spec.startswith(".") or origin.package.name != target.package.name:
            return False
        joined = posixpath.join(posixpath.dirname(origin.path), spec)
        return _dts_path(origin.package, joined, origin.path) == target.path

    async def _augmentations(self, pkg: NpmPackageFiles, matches: Callable[[str, DtsFile], bool]) -> list[Scope]:
        """`declare module "..."` blocks in any declaration file of the package that target a module."""
        found: list[Scope] = []
        for path, text in sorted(pkg.texts.items()):
            if not path.endswith(_DTS) or "declare module" not in text:
                continue
            specs = _AMBIENT.findall(text)
            origin_probe = DtsFile(pkg, path)
            if not any(matches(spec, origin_probe) for spec in specs):
                continue
            dts = self.file(pkg, path)
            found.extend(block for spec, block in dts.ambient if matches(spec, dts))
        return found

    async def module(self, spec: str, origin: DtsFile, depth: int = 0) -> ModuleView | None:
        """The module a specifier names, seen from a declaration file (relative, ambient or a package)."""
        if depth > MAX_DEPTH:
            return None
        if spec.startswith("."):
            path = _dts_path(origin.package, posixpath.join(posixpath.dirname(origin.path), spec), origin.path)
            if path is None:
                return None
            return await self._module_of_file(self.file(origin.package, path))
        scopes: list[Scope] = []
        dts: DtsFile | None = None
        bare = spec.removeprefix("node:")
        if node_builtin(spec) or node_builtin(f"node:{bare}"):
            node_types = await self.package("@types/node")
            if node_types is not None:
                scopes += await self._augmentations(node_types, lambda s, _o: s in (spec, bare, f"node:{bare}"))
        else:
            package_name, subpath = _split_specifier(spec)
            for candidate in _types_candidates(origin.package, package_name):
                pkg = await self.package(candidate, _dependency_range(origin.package, candidate))
                if pkg is None:
                    continue
                path = types_entry(pkg, subpath)
                if path is not None:
                    dts = self.file(pkg, path)
                    view = await self._module_of_file(dts)
                    scopes += view.scopes
                    break
        for pkg in [p for p in self.packages.values() if p is not None]:
            scopes += [s for s in await self._augmentations(pkg, lambda s, _o: s == spec) if s not in scopes]
        if not scopes:
            return None
        return ModuleView(spec, scopes, dts)

    # ------------------------------------------------------------------ global names
    async def global_decls(self, name: str) -> list[Decl]:
        if name in self._globals:
            return self._globals[name]
        out: list[Decl] = []
        for pkg in [p for p in self.packages.values() if p is not None]:
            for path, text in sorted(pkg.texts.items()):
                if not path.endswith(_DTS) or name not in text:
                    continue
                if "global" not in text and re.search(r"^(import|export)\b", text, re.M):
                    continue  # a module file without global declarations
                dts = self.file(pkg, path)
                for block in dts.globals:
                    out.extend(block.names.get(name, []))
        self._globals[name] = out
        return out


@dataclass
class ModuleView:
    label: str
    scopes: list[Scope]
    file: DtsFile | None


# ---------------------------------------------------------------------- resolution
class Resolver:
    """Answers member questions over a DeclarationWorld; every answer says whether it is complete."""

    def __init__(self, world: DeclarationWorld) -> None:
        self.world = world
        self._seen: set[tuple[int, str]] = set()
        self._expanding: set[int] = set()
        self._exporting: set[tuple[int, str]] = set()

    # ------------------------------------------------------------------ module level
    async def exports(self, module: ModuleView, depth: int = 0) -> Members:
        """Names the module exports (ES names; for `export =`, the members of the exported value)."""
        out = Members()
        if depth > MAX_DEPTH:
            return out.unknown("re-exports nested too deep")
        for scope in module.scopes:
            if id(scope) in self._expanding:
                continue  # `node:fs` re-exports `fs`, which re-exports `node:fs`: each block is read once
            self._expanding.add(id(scope))
            try:
                await self._scope_exports(module, scope, out, depth)
            finally:
                self._expanding.discard(id(scope))
        if not module.scopes:
            out.unknown(f"{module.label}: no declarations")
        return out

    async def _scope_exports(self, module: ModuleView, scope: Scope, out: Members, depth: int) -> None:
        if scope.export_equals is not None:
            out.absorb(await self.value_members(await self.value_decls(scope, _text(scope.export_equals)), depth))
        if scope.kind in ("ambient", "namespace") and scope.export_equals is None:
            for name, decls in scope.names.items():
                if any(d.kind != "unreadable" for d in decls):
                    out.slot(name, "export", (module, name))
        for name in scope.exports:
            out.slot(name, "export", (module, name))
        if "*" in scope.names:
            out.unknown(f"{scope.label} has syntax the parser could not read")
        for star in scope.stars:
            target = await self._module_from(scope, star, depth)
            if target is None:
                out.unknown(f"{scope.label}: `export * from {star!r}` not resolvable")
                continue
            inner = await self.exports(target, depth + 1)
            inner.names.discard("default")
            out.absorb(inner)

    async def export_decls(self, module: ModuleView, name: str, depth: int = 0) -> list[Decl]:
        """Declarations behind export `name` of a module (following re-exports and `export =`)."""
        if depth > MAX_DEPTH:
            return []
        out: list[Decl] = []
        for scope in module.scopes:
            key = (id(scope), name)
            if key in self._exporting:
                continue
            self._exporting.add(key)
            try:
                out.extend(await self._scope_export_decls(scope, name, depth))
            finally:
                self._exporting.discard(key)
        return out

    async def _scope_export_decls(self, scope: Scope, name: str, depth: int) -> list[Decl]:
        out: list[Decl] = []
        if scope.export_equals is not None:
            equals = await self.value_decls(scope, _text(scope.export_equals))
            out.extend(await self.member_decls(equals, name, depth + 1))
        for local, spec in scope.exports.get(name, []):
            if spec is None:
                out.extend(await self.value_decls(scope, local) if local else [])
                continue
            source = await self._module_from(scope, spec, depth)
            if source is not None and local == "*":
                out.append(Decl("module", name, None, scope, spec=spec, module=source))
            elif source is not None:
                out.extend(await self.export_decls(source, local, depth + 1))
        if scope.kind in ("ambient", "namespace") and scope.export_equals is None and name not in scope.exports:
            out.extend(scope.names.get(name, []))  # ambient declarations are exported implicitly
        for star in scope.stars:
            if name == "default":
                continue
            starred = await self._module_from(scope, star, depth)
            if starred is not None:
                out.extend(await self.export_decls(starred, name, depth + 1))
        return out

    async def _module_from(self, scope: Scope, spec: str, depth: int) -> ModuleView | None:
        return await self.world.module(spec, scope.file, depth + 1)

    # ------------------------------------------------------------------ names in scopes
    async def value_decls(self, scope: Scope, dotted: str) -> list[Decl]:
        """Declarations a (possibly dotted) name refers to from `scope`: local, enclosing, imported, global."""
        head, *rest = dotted.split(".")
        decls = await self._lookup(scope, head, qualifier=bool(rest))
        for part in rest:
            decls = await self.member_decls(decls, part, 0)
        return decls

    async def _lookup(self, scope: Scope, name: str, *, qualifier: bool = False) -> list[Decl]:
        """The nearest declarations of `name`; as the head of `A.B`, only those that can hold members."""

        def usable(decls: list[Decl]) -> bool:
            return not qualifier or any(d.kind not in ("interface", "type") for d in decls)

        current: Scope | None = scope
        while current is not None:
            # An augmentation's names merge with those of every other block of the same module.
            found = list(current.names.get(name, []))
            for sibling in current.merged_with:
                found += [d for d in self._namespace_merge(sibling, name) if d not in found]
            if found and usable(found):
                return found
            current = current.parent
        root = scope.file.root
        if root is not None and name in root.names and usable(root.names[name]):
            return root.names[name]
        return [d for d in await self.world.global_decls(name) if not qualifier or d.kind not in ("interface", "type")]

    @staticmethod
    def _namespace_merge(scope: Scope, name: str) -> list[Decl]:
        """`name` in a sibling block, or in the namespace that `export = X` merges augmentations into."""
        if name in scope.names:
            return scope.names[name]
        if scope.export_equals is not None and scope.export_equals.type == "identifier":
            for decl in scope.names.get(_text(scope.export_equals), []):
                if decl.kind == "namespace" and decl.body is not None and name in decl.body.names:
                    return decl.body.names[name]
        return []

    async def member_decls(self, decls: list[Decl], name: str, depth: int) -> list[Decl]:
        """Declarations of `X.name` where X is a namespace, an import of a module, or an alias."""
        out: list[Decl] = []
        for decl in await self._follow(decls, depth):
            for body in decl.bodies if decl.kind == "namespace" else []:
                if name in body.names:
                    out.extend(body.names[name])
                for local, spec in body.exports.get(name, []):
                    if spec is None and local and not (local == name and name in body.names):
                        out.extend(await self._lookup(body.parent or body, local) if local == name else
                                   await self._lookup(body, local))  # fmt: skip
                    elif spec is not None:
                        module = await self._module_from(body, spec, depth)
                        if module is not None:
                            out.extend(await self.export_decls(module, local, depth + 1))
            if decl.kind == "module" and decl.module is not None:
                out.extend(await self.export_decls(decl.module, name, depth + 1))
        return out

    async def _follow(self, decls: list[Decl], depth: int) -> list[Decl]:
        """Imports and aliases replaced by what they refer to."""
        out: list[Decl] = []
        for decl in decls:
            if depth > MAX_DEPTH:
                break
            if decl.kind == "import" and decl.spec is not None:
                module = await self._module_from(decl.scope, decl.spec, depth)
                if module is None:
                    out.append(Decl("unreadable", decl.name, decl.node, decl.scope, spec=decl.spec))
                    continue
                if decl.imported in ("*", "="):
                    out.append(_module_decl(decl, module))
                else:
                    target = await self.export_decls(module, decl.imported or decl.name, depth + 1)
                    out.extend(await self._follow(target, depth + 1) if target else
                               [Decl("unreadable", decl.name, decl.node, decl.scope, spec=decl.spec)])  # fmt: skip
            elif decl.kind == "alias" and decl.imported:
                out.extend(await self._follow(await self.value_decls(decl.scope, decl.imported), depth + 1))
            else:
                out.append(decl)
        return out

    # ------------------------------------------------------------------ values
    async def value_members(self, decls: list[Decl], depth: int = 0) -> Members:
        """Properties of the value these declarations describe (`X.prop`)."""
        out = Members()
        followed = await self._follow(decls, depth)
        values = [d for d in followed if d.kind in _VALUE_KINDS or d.kind in ("module", "unreadable")]
        if not values:
            return out.unknown("no value declaration" + (f" for {decls[0].name}" if decls else ""))
        out.names |= OBJECT_MEMBERS
        for decl in values:
            if depth > MAX_DEPTH:
                return out.unknown("declarations nested too deep")
            if decl.kind == "unreadable":
                out.unknown(f"{decl.name}: {decl.spec or 'declaration'} not readable")
            elif decl.kind == "module" and decl.module is not None:
                out.absorb(await self.exports(decl.module, depth + 1))
            elif decl.kind == "namespace":
                for body in decl.bodies:
                    out.absorb(self._namespace_values(body))
            elif decl.kind == "function":
                out.names |= FUNCTION_MEMBERS
                returned = decl.node.child_by_field_name("return_type")
                out.calls.append(TypeRef(returned, decl.scope) if returned is not None else TypeRef(None, decl.scope))
            elif decl.kind == "class":
                out.names |= FUNCTION_MEMBERS
                out.absorb(await self._class_side(decl, static=True, depth=depth))
                out.classes.append(decl)
            elif decl.kind == "enum":
                body = decl.node.child_by_field_name("body")
                for member in body.named_children if body is not None else []:
                    target = member.child_by_field_name("name") if member.type == "enum_assignment" else member
                    if target is not None:
                        out.names.add(_text(target).strip("'\""))
            elif decl.kind == "var":
                annotation = decl.node.child_by_field_name("type")
                if annotation is None:
                    out.unknown(f"{decl.name} has no declared type")
                else:
                    out.absorb(await self.type_members(TypeRef(annotation, decl.scope), depth + 1))
        return out

    def _namespace_values(self, body: Scope) -> Members:
        out = Members()
        for name, decls in body.names.items():
            if any(d.kind in _VALUE_KINDS or d.kind in ("import", "alias") for d in decls):
                out.slot(name, "decls", decls)
            if any(d.kind == "unreadable" for d in decls):
                out.unknown(f"{body.label} has syntax the parser could not read")
        for name, locals_ in body.exports.items():
            for local, spec in locals_:
                out.slot(name, "lookup", (body, local, spec))
        return out

    async def member_of(self, members: Members, name: str, depth: int = 0) -> Members:
        """What the declarations say member `name` of a value is (its own members, calls and `new`)."""
        out = Members()
        slots = members.slots.get(name, [])
        if not slots:
            return out.unknown(f"the declaration of {name!r} is not modelled")
        for kind, payload in slots:
            if depth > MAX_DEPTH:
                return out.unknown("declarations nested too deep")
            if kind == "decls":
                out.absorb(await self.value_members(payload, depth + 1))
            elif kind == "type":
                out.absorb(await self.type_members(payload, depth + 1))
            elif kind == "method":
                method = Members(names=set(OBJECT_MEMBERS | FUNCTION_MEMBERS))
                method.calls.append(payload)
                out.absorb(method)
            elif kind == "export":
                module, export = payload
                out.absorb(await self.value_members(await self.export_decls(module, export, depth + 1), depth + 1))
            elif kind == "lookup":
                scope, local, spec = payload
                if spec is None:
                    decls = (
                        await self._lookup(scope.parent or scope, local)
                        if local == name
                        else await self._lookup(scope, local)
                    )
                else:
                    source = await self._module_from(scope, spec, depth)
                    decls = await self.export_decls(source, local, depth + 1) if source is not None else []
                out.absorb(await self.value_members(decls, depth + 1))
        return out

    async def call_result(self, value: Members, depth: int = 0) -> Members:
        """Members of what calling the value returns (every overload)."""
        out = Members()
        if not value.calls:
            return out.unknown("not callable according to its declarations")
        for ref in value.calls:
            if ref.node is None:
                out.unknown("a call signature without a return type")
            else:
                out.absorb(await self.type_members(ref, depth + 1))
        return out

    async def construct_result(self, value: Members, depth: int = 0) -> Members:
        """Members of what `new` on the value makes (class instances, construct signatures)."""
        out = Members()
        if not value.classes and not value.constructs:
            return out.unknown("not constructible according to its declarations")
        for decl in value.classes:
            out.absorb(await self._class_side(decl, static=False, depth=depth + 1))
        for ref in value.constructs:
            out.absorb(await self.type_members(ref, depth + 1))
        return out

    # ------------------------------------------------------------------ types
    async def type_members(self, ref: TypeRef, depth: int = 0) -> Members:
        out = Members()
        node = ref.node
        if node is None:
            return out.unknown("no type")
        if depth > MAX_DEPTH:
            return out.unknown("types nested too deep")
        kind = node.type
        if kind in ("type_annotation", "parenthesized_type", "readonly_type") and node.named_children:
            return await self.type_members(TypeRef(node.named_children[-1], ref.scope), depth + 1)
        if kind == "generic_type":
            name = node.child_by_field_name("name")
            return await self.type_members(TypeRef(name, ref.scope), depth + 1) if name is not None else out
        if kind in ("type_identifier", "nested_type_identifier", "identifier"):
            return await self._named_type(ref.scope, _text(node), depth)
        if kind == "object_type":
            out.names |= OBJECT_MEMBERS
            self._object_body(node, ref.scope, out)
            return out
        if kind in ("intersection_type", "union_type"):
            for part in node.named_children:
                if part.type == "predefined_type" and _text(part) in _EMPTY_TYPES:
                    continue
                if part.type == "literal_type" and _text(part) in ("null", "undefined"):
                    continue
                out.absorb(await self.type_members(TypeRef(part, ref.scope), depth + 1))
            return out
        if kind == "type_query" and node.named_children:
            decls = await self.value_decls(ref.scope, _text(node.named_children[0]))
            return await self.value_members(decls, depth + 1)
        if kind in ("function_type",):
            out.names |= OBJECT_MEMBERS | FUNCTION_MEMBERS
            returned = node.child_by_field_name("return_type")
            out.calls.append(TypeRef(returned, ref.scope))
            return out
        if kind == "constructor_type":
            out.names |= OBJECT_MEMBERS | FUNCTION_MEMBERS
            out.constructs.append(TypeRef(node.child_by_field_name("type"), ref.scope))
            return out
        if kind == "predefined_type":
            text = _text(node)
            if text == "object":
                out.names |= OBJECT_MEMBERS
                return out
            if text in _EMPTY_TYPES:
                return out
            return out.unknown(f"type {text} is not modelled")
        return out.unknown(f"{kind.replace('_', ' ')} `{_text(node)[:40]}` is not modelled")

    async def _named_type(self, scope: Scope, dotted: str, depth: int) -> Members:
        out = Members()
        key = (id(scope), dotted)
        if key in self._seen:
            return out  # a type that extends itself through a cycle adds nothing new
        self._seen.add(key)
        try:
            decls = await self._follow(await self.value_decls(scope, dotted), depth)
            types = [d for d in decls if d.kind in ("interface", "class", "type", "enum", "unreadable")]
            if not types and dotted in ("Function", "CallableFunction", "NewableFunction", "Object"):
                out.names |= OBJECT_MEMBERS | (FUNCTION_MEMBERS if dotted != "Object" else frozenset())
                return out  # the language's own, when nothing in the declarations shadows them
            if not types:
                if _is_type_parameter(scope, dotted):
                    return out.unknown(f"generic type {dotted}")
                return out.unknown(f"type {dotted} not resolvable")
            out.names |= OBJECT_MEMBERS
            for decl in types:
                if decl.kind == "interface":
                    self._object_body(decl.node.child_by_field_name("body"), decl.scope, out)
                    for heritage in decl.node.named_children:
                        if heritage.type == "extends_type_clause":
                            for base in heritage.named_children:
                                out.absorb(await self.type_members(TypeRef(base, decl.scope), depth + 1))
                elif decl.kind == "class":
                    out.absorb(await self._class_side(decl, static=False, depth=depth + 1))
                elif decl.kind == "type":
                    value = decl.node.child_by_field_name("value")
                    out.absorb(await self.type_members(TypeRef(value, decl.scope), depth + 1))
                elif decl.kind == "enum":
                    out.unknown(f"enum type {dotted} is not modelled")
                else:
                    out.unknown(f"{dotted}: {decl.spec or 'declaration'} not readable")
            return out
        finally:
            self._seen.discard(key)

    def _object_body(self, body: Any, scope: Scope, out: Members) -> None:
        for member in body.named_children if body is not None else []:
            if member.type in ("property_signature", "method_signature", "public_field_definition"):
                name = member.child_by_field_name("name")
                if name is not None and name.type in ("property_identifier", "identifier", "string"):
                    _member_slot(out, _text(name).strip("'\""), member, scope)
            elif member.type == "call_signature":
                returned = member.child_by_field_name("return_type")
                out.calls.append(TypeRef(returned, scope))
            elif member.type == "construct_signature":
                out.constructs.append(TypeRef(member.child_by_field_name("type"), scope))
            elif member.type == "index_signature":
                if any(c.type == "mapped_type_clause" for c in member.named_children):
                    out.unknown("mapped type members are not modelled")
                else:
                    out.unknown("an index signature admits any name")

    async def _class_side(self, decl: Decl, *, static: bool, depth: int) -> Members:
        """Instance members (with `extends`, and a merged interface) or, with `static`, the class's own."""
        out = Members()
        body = decl.node.child_by_field_name("body")
        for member in body.named_children if body is not None else []:
            is_static = any(c.type == "static" or _text(c) == "static" for c in member.children[:3])
            if member.type == "index_signature" and not static:
                out.unknown("an index signature admits any name")
                continue
            if is_static != static:
                continue
            name = member.child_by_field_name("name")
            if name is not None and member.type in (
                "method_signature", "method_definition", "public_field_definition", "abstract_method_signature",
                "property_signature",
            ):  # fmt: skip
                text = _text(name).strip("'\"")
                if text != "constructor":
                    _member_slot(out, text, member, decl.scope)
        heritage = next((c for c in decl.node.named_children if c.type == "class_heritage"), None)
        extends = next((c for c in heritage.named_children if c.type == "extends_clause"), None) if heritage else None
        if extends is not None:
            base = extends.child_by_field_name("value")
            if base is not None:
                base_decls = await self._follow(await self.value_decls(decl.scope, _text(base)), depth)
                classes = [d for d in base_decls if d.kind == "class"]
                if classes:
                    for base_class in classes:
                        out.absorb(await self._class_side(base_class, static=static, depth=depth + 1))
                elif static:
                    out.absorb(await self.value_members(base_decls, depth + 1))
                else:
                    value = await self.value_members(base_decls, depth + 1)
                    out.absorb(await self.construct_result(value, depth + 1))
        if not static:
            for merged in decl.scope.names.get(decl.name, []):
                if merged.kind == "interface":
                    out.absorb(await self._named_type(decl.scope, decl.name, depth + 1))
                    break
            out.names |= OBJECT_MEMBERS
        return out


def _member_slot(out: Members, name: str, member: Any, scope: Scope) -> None:
    """A property's type or a method's return type, kept so `x.name` and `x.name()` can be followed."""
    if member.type in ("method_signature", "method_definition", "abstract_method_signature"):
        returned = member.child_by_field_name("return_type")
        out.slot(name, "method", TypeRef(returned, scope))
        return
    annotation = member.child_by_field_name("type")
    if annotation is not None:
        out.slot(name, "type", TypeRef(annotation, scope))
    else:
        out.names.add(name)


def _module_decl(decl: Decl, module: ModuleView) -> Decl:
    """An import of a whole module (`import * as m`, `import m = require()`) as a value declaration."""
    return Decl("module", decl.name, decl.node, decl.scope, spec=decl.spec, module=module)


def _is_type_parameter(scope: Scope, name: str) -> bool:
    return "." not in name and len(name) <= 2 and name[:1].isupper()


# ---------------------------------------------------------------------- package layout
def _split_specifier(spec: str) -> tuple[str, str | None]:
    parts = spec.split("/")
    if spec.startswith("@") and len(parts) >= 2:
        return "/".join(parts[:2]), "/".join(parts[2:]) or None
    return parts[0], "/".join(parts[1:]) or None


def types_package_name(package: str) -> str:
    if package.startswith("@"):
        scope, _, name = package[1:].partition("/")
        return f"@types/{scope}__{name}"
    return f"@types/{package}"


def _types_candidates(origin: NpmPackageFiles, package: str) -> list[str]:
    """Where the types of `package` may live, seen from a package that imports it (its dependencies first)."""
    deps = _dependencies(origin)
    types_name = types_package_name(package)
    if package.startswith("@types/"):
        return [package]
    if types_name in deps and package not in deps:
        return [types_name, package]
    return [package, types_name]


def _dependencies(pkg: NpmPackageFiles) -> dict[str, str]:
    out: dict[str, str] = {}
    for key in ("peerDependencies", "dependencies"):
        value = pkg.manifest.get(key)
        if isinstance(value, dict):
            out.update({k: str(v) for k, v in value.items() if isinstance(k, str)})
    return out


def _dependency_range(origin: NpmPackageFiles, name: str) -> str | None:
    wanted = _dependencies(origin).get(name)
    return wanted if wanted and wanted not in ("*", "latest") else None


def _dts_path(pkg: NpmPackageFiles, base: str, origin: str = "") -> str | None:
    """The declaration file a module path names (`./x`, `./x.js` -> `x.d.ts`, a folder -> `index.d.ts`).

    From a `.d.mts` (or `.d.cts`) file, `./x.js` and `./x.ts` may also name `x.d.mts` (`x.d.cts`).
    """
    base = posixpath.normpath(base)
    stem, ext = posixpath.splitext(base)
    options = []
    if ext in (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"):
        mapped = {
            ".js": ".d.ts",
            ".ts": ".d.ts",
            ".mjs": ".d.mts",
            ".mts": ".d.mts",
            ".cjs": ".d.cts",
            ".cts": ".d.cts",
        }
        options.append(stem + mapped[ext])
        own = next((e for e in (".d.mts", ".d.cts") if origin.endswith(e)), None)
        if own is not None:
            options.append(stem + own)
    options += [base, base + ".d.ts", base + ".d.mts", base + ".d.cts", base + "/index.d.ts", base + "/index.d.mts"]
    return next((o for o in options if o.endswith(_DTS) and o in pkg.texts), None)


def types_entry(pkg: NpmPackageFiles, subpath: str | None, mode: str = "require") -> str | None:
    """The declaration file TypeScript would pick for `package[/subpath]` when imported with `mode`.

    `exports` conditions are tried in the package's own order, the active ones being `types`,
    `mode` ("import" or "require"), `node` and `default`; then `types`/`typings`, `main`, `index`.
    """
    manifest = pkg.manifest
    key = "." if not subpath else "./" + subpath.strip("/")
    exports = manifest.get("exports")
    if isinstance(exports, (str, list)) or (isinstance(exports, dict) and not any(k.startswith(".") for k in exports)):
        exports = {".": exports}
    if isinstance(exports, dict) and key in exports:
        path = _conditional_types(pkg, exports[key], mode, 0)
        if path is not None:
            return path
    if not subpath:
        for field_name in ("types", "typings", "main"):
            value = manifest.get(field_name)
            if isinstance(value, str):
                path = _dts_path(pkg, value.removeprefix("./"))
                if path is not None:
                    return path
        return _dts_path(pkg, "index")
    return _dts_path(pkg, subpath)


def _conditional_types(pkg: NpmPackageFiles, value: Any, mode: str, depth: int) -> str | None:
    if depth > 8:
        return None
    if isinstance(value, str):
        return _dts_path(pkg, value.removeprefix("./"))
    if isinstance(value, list):
        return next((p for item in value if (p := _conditional_types(pkg, item, mode, depth + 1))), None)
    if isinstance(value, dict):
        for condition, inner in value.items():
            if condition in ("types", mode, "node", "default"):
                path = _conditional_types(pkg, inner, mode, depth + 1)
                if path is not None:
                    return path
    return None


def referenced_types(pkg: NpmPackageFiles, path: str) -> list[str]:
    """`/// <reference types="x" />` names in a declaration file."""
    return _TYPES_REFERENCE.findall(pkg.texts.get(path, ""))
