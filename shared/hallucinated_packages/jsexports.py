"""JavaScript exports read statically from a published npm tarball: entry files and exported names.

Entry points come from package.json the way Node resolves them: `exports` (conditions, subpath
patterns, null exclusions) first, else `main`/`module`/`index.js`, with file-path subpaths when
there is no `exports` map. Exported names are read with tree-sitter from ESM (`export ...`,
`export * from`, followed inside the package and into the packages it depends on) and CommonJS
(`exports.x =`, `module.exports = {...}`, `module.exports = require(...)`,
`Object.defineProperty(exports, ...)`, TS `__exportStar`). A set is *complete* only when nothing
could have added names unseen: a computed `exports[name] =`, `module.exports` set to a call, a
`new` object or a value nobody read, a re-export of a package that was not loaded, or a syntax
error near an export all make it incomplete. tree-sitter is imported lazily. Embedded: standard
library only at module level.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .npm_tarball import NpmPackageFiles

_JS_EXTENSIONS = ("", ".js", ".json", ".cjs", ".mjs", "/index.js", "/index.json", "/index.cjs", "/index.mjs")
_DTS_EXTENSIONS = (".d.ts", ".d.mts", ".d.cts", "/index.d.ts", "/index.d.mts", "")
_DECLARATIONS = {
    "function_declaration", "generator_function_declaration", "class_declaration", "abstract_class_declaration",
    "interface_declaration", "type_alias_declaration", "enum_declaration", "function_signature",
    "internal_module", "module",
}  # fmt: skip


@dataclass
class ExportSet:
    """Names a module exports; `complete` False when static reading may have missed some."""

    names: set[str] = field(default_factory=set)
    modules: dict[str, str] = field(default_factory=dict)  # export name -> in-package module file
    complete: bool = True
    notes: list[str] = field(default_factory=list)

    def merge(self, other: ExportSet, *, keep_default: bool) -> None:
        self.names |= {n for n in other.names if keep_default or n != "default"}
        self.modules.update(other.modules)
        if not other.complete:
            self.complete = False
            self.notes.extend(other.notes)


@lru_cache(maxsize=2)
def _parser(kind: str) -> Any:
    from tree_sitter import Language, Parser

    if kind == "ts":
        import tree_sitter_typescript

        return Parser(Language(tree_sitter_typescript.language_typescript()))
    import tree_sitter_javascript

    return Parser(Language(tree_sitter_javascript.language()))


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", errors="replace"))


def _string_value(node: Any) -> str | None:
    if node is None or node.type not in ("string", "template_string"):
        return None
    inner = _text(node)
    return inner[1:-1] if len(inner) >= 2 else None


def _require_target(node: Any) -> str | None:
    """`require("x")` -> "x"."""
    if node is None or node.type != "call_expression":
        return None
    func = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    if func is None or _text(func) != "require" or args is None or args.named_child_count != 1:
        return None
    return _string_value(args.named_children[0])


def _walk(node: Any) -> list[Any]:
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(reversed(current.children))
    return out


# ---------------------------------------------------------------------- entry resolution
def _pattern_match(exports: dict[str, Any], key: str) -> tuple[Any, str | None] | None:
    if key in exports:
        return exports[key], None
    best: tuple[int, str] | None = None
    for pattern in exports:
        if "*" in pattern:
            prefix, _, suffix = pattern.partition("*")
            fits = key.startswith(prefix) and key.endswith(suffix) and len(key) >= len(prefix) + len(suffix)
            weight = len(prefix)
        else:  # legacy folder mapping "./dir/": "./dir/"
            fits = pattern.endswith("/") and key.startswith(pattern)
            weight = len(pattern)
        if fits and (best is None or weight > best[0]):
            best = (weight, pattern)
    if best is None:
        return None
    pattern = best[1]
    if "*" in pattern:
        prefix, _, suffix = pattern.partition("*")
        return exports[pattern], key[len(prefix) : len(key) - len(suffix) if suffix else None]
    return exports[pattern], "\0" + key[len(pattern) :]


def _targets(value: Any, star: str | None, types: list[str]) -> list[str]:
    """Every target string under every condition (null targets give nothing)."""
    if isinstance(value, str):
        if star is not None and star.startswith("\0"):
            target = value + star[1:]
        else:
            target = value.replace("*", star) if star is not None else value
        return [posixpath.normpath(target.removeprefix("./"))]
    if isinstance(value, list):
        return [t for item in value for t in _targets(item, star, types)]
    if isinstance(value, dict):
        out: list[str] = []
        for condition, inner in value.items():
            if condition == "types":
                types.extend(_targets(inner, star, []))
            else:
                out.extend(_targets(inner, star, types))
        return out
    return []


@dataclass
class Entries:
    js: list[str]
    types: list[str]
    missing: str | None = None  # why the subpath does not exist
    note: str = ""


def resolve_entries(pkg: NpmPackageFiles, subpath: str | None) -> Entries:
    """Entry files for `package[/subpath]` the way Node (and TypeScript, for `types`) would pick them."""
    manifest = pkg.manifest
    exports = manifest.get("exports")
    key = "." if not subpath else "./" + subpath.strip("/")
    if exports is not None:
        if isinstance(exports, (str, list)) or (
            isinstance(exports, dict) and exports and not any(k.startswith(".") for k in exports)
        ):
            exports = {".": exports}
        if not isinstance(exports, dict):
            return Entries([], [], None, "unreadable exports field")
        match = _pattern_match(exports, key)
        if match is None:
            return Entries([], [], f'"{key}" is not listed in the exports map of {pkg.name}@{pkg.version}')
        types: list[str] = []
        targets = _targets(match[0], match[1], types)
        if not targets and not types:
            return Entries([], [], f'"{key}" is excluded (null) in the exports map of {pkg.name}@{pkg.version}')
        js = [t for t in dict.fromkeys(targets) if t in pkg.paths and not t.endswith((".d.ts", ".d.mts", ".d.cts"))]
        types += [t for t in targets if t.endswith((".d.ts", ".d.mts", ".d.cts"))]
        types = [t for t in dict.fromkeys(types) if t in pkg.paths]
        return Entries(js, types, None, f"exports[{key!r}]")
    if not subpath:
        starts = [manifest.get("main"), manifest.get("module"), "index"]
        js = _existing(pkg, [s for s in starts if isinstance(s, str)], _JS_EXTENSIONS)
        typing = [manifest.get("types"), manifest.get("typings")]
        types = _existing(pkg, [t for t in typing if isinstance(t, str)], _DTS_EXTENSIONS)
        return Entries(js, types, None, "main/module")
    js = _existing(pkg, [subpath], _JS_EXTENSIONS)
    folder_manifest = pkg.texts.get(f"{subpath.strip('/')}/package.json")
    if not js and folder_manifest:
        import json

        try:
            main = json.loads(folder_manifest).get("main")
        except (ValueError, AttributeError):
            main = None
        if isinstance(main, str):
            js = _existing(pkg, [posixpath.join(subpath, main)], _JS_EXTENSIONS)
    types = _existing(pkg, [subpath], _DTS_EXTENSIONS)
    if not js and not types:
        return Entries([], [], f"no file {subpath}(.js|.json|/index.js) in {pkg.name}@{pkg.version}")
    return Entries(js, types, None, "file path")


def entry_for(pkg: NpmPackageFiles, subpath: str | None, mode: str) -> list[str]:
    """The JavaScript file Node loads for `package[/subpath]` with `require` or `import` (`mode`).

    `exports` conditions are tried in the package's order, the active ones being `mode`, `node`
    and `default` (what Node itself does); without `exports`, `main` (Node ignores `module`).
    A `require()` of express and an `import` of its ESM twin are different objects, so the module
    value's names come from this file only, never from every condition at once.
    """
    manifest = pkg.manifest
    exports = manifest.get("exports")
    key = "." if not subpath else "./" + subpath.strip("/")
    if exports is not None:
        if isinstance(exports, (str, list)) or (
            isinstance(exports, dict) and exports and not any(k.startswith(".") for k in exports)
        ):
            exports = {".": exports}
        match = _pattern_match(exports, key) if isinstance(exports, dict) else None
        if match is None:
            return []
        target = _conditional_target(match[0], match[1], mode, 0)
        return [target] if target is not None and target in pkg.paths else []
    if not subpath:
        starts = [manifest.get("main"), "index"]
        return _existing(pkg, [s for s in starts if isinstance(s, str)], _JS_EXTENSIONS)[:1]
    return resolve_entries(pkg, subpath).js[:1]


def _conditional_target(value: Any, star: str | None, mode: str, depth: int) -> str | None:
    if depth > 8:
        return None
    if isinstance(value, str):
        found = _targets(value, star, [])
        target = found[0] if found else None
        return None if target is None or target.endswith((".d.ts", ".d.mts", ".d.cts")) else target
    if isinstance(value, list):
        return next((t for item in value if (t := _conditional_target(item, star, mode, depth + 1))), None)
    if isinstance(value, dict):
        for condition, inner in value.items():
            if condition in (mode, "node", "default"):
                target = _conditional_target(inner, star, mode, depth + 1)
                if target is not None:
                    return target
    return None


def _existing(pkg: NpmPackageFiles, starts: list[str], extensions: Sequence[str]) -> list[str]:
    out: list[str] = []
    for start in starts:
        base = posixpath.normpath(start.removeprefix("./"))
        for ext in extensions:
            candidate = base + ext
            if candidate in pkg.paths and candidate not in out:
                out.append(candidate)
                break
    return out


# ---------------------------------------------------------------------- export reading
class ExportReader:
    """Exported names of files in one package, following re-exports inside it and into `externals`.

    A re-export of another package (`export * from "@vue/runtime-dom"`) is followed when that
    package is in `externals`; otherwise its name goes to `wanted`, so the caller can load it
    and read again, and the set stays incomplete meanwhile.
    """

    def __init__(self, pkg: NpmPackageFiles, externals: Mapping[str, NpmPackageFiles] | None = None) -> None:
        self.pkg = pkg
        self.externals = dict(externals or {})
        self.wanted: set[str] = set()
        self._cache: dict[str, ExportSet] = {}
        self._external_readers: dict[str, ExportReader] = {}

    def resolve(self, from_file: str, specifier: str) -> str | None:
        if not specifier.startswith("."):
            return None
        base = posixpath.normpath(posixpath.join(posixpath.dirname(from_file), specifier))
        if from_file.endswith((".d.ts", ".d.mts", ".d.cts")):
            # Declarations import `./x.js`, `./x.ts` or `./x`; the file is `x.d.ts` (`.mjs` -> `.d.mts`, ...).
            stem, ext = posixpath.splitext(base)
            mapped = {
                ".js": ".d.ts",
                ".ts": ".d.ts",
                ".mjs": ".d.mts",
                ".mts": ".d.mts",
                ".cjs": ".d.cts",
                ".cts": ".d.cts",
            }
            if ext in mapped:
                own = next(e for e in (".d.mts", ".d.cts", ".d.ts") if from_file.endswith(e))
                for option in (stem + mapped[ext], stem + own):
                    if option in self.pkg.paths:
                        return option
            found = _existing(self.pkg, [base], _DTS_EXTENSIONS)
        else:
            found = _existing(self.pkg, [base], _JS_EXTENSIONS)
        return found[0] if found else None

    def exports_of(self, path: str, depth: int = 0) -> ExportSet:
        if path in self._cache:
            return self._cache[path]
        if depth > 12:
            return ExportSet(complete=False, notes=[f"re-export chain too deep at {path}"])
        self._cache[path] = ExportSet(complete=False, notes=[f"cyclic re-export at {path}"])
        result = self._read(path, depth)
        self._cache[path] = result
        return result

    def _read(self, path: str, depth: int) -> ExportSet:
        text = self.pkg.texts.get(path)
        if text is None:
            return ExportSet(complete=False, notes=[f"{path} not readable"])
        if path.endswith(".json"):
            return ExportSet({"default"}, complete=False, notes=[f"{path} is JSON"])
        kind = "ts" if path.endswith((".ts", ".mts", ".cts")) else "js"
        tree = _parser(kind).parse(text.encode("utf-8"))
        out = ExportSet()
        if tree.root_node.has_error and _errors_touch_exports(tree.root_node):
            out.complete = False
            out.notes.append(f"{path} has syntax the parser could not read, near an export")
        found_esm = self._esm(tree.root_node, path, depth, out)
        found_cjs = kind == "js" and self._cjs(tree.root_node, path, depth, out)
        if not found_esm and not found_cjs:
            out.complete = False
            out.notes.append(f"no static exports found in {path} (UMD or dynamic)")
        return out

    # ------------------------------------------------------------------ ESM / .d.ts
    def _esm(self, root: Any, path: str, depth: int, out: ExportSet) -> bool:
        found = False
        for node in root.named_children:
            if node.type != "export_statement":
                continue
            found = True
            clause = _EXPORT_CLAUSE.fullmatch(_text(node).strip()) if node.has_error else None
            if clause is not None:  # `export { a as instanceof }`: a keyword after `as`, which the grammar rejects
                names = [part.split()[-1] for part in clause.group("names").split(",") if part.strip()]
                if clause.group("source"):
                    self._follow(path, clause.group("source"), depth, ExportSet(), keep_default=False)
                out.names.update(n.strip("'\"") for n in names)
                continue
            tokens = [c.type for c in node.children]
            declaration = node.child_by_field_name("declaration")
            source = _string_value(node.child_by_field_name("source"))
            if "default" in tokens:
                out.names.add("default")
            elif declaration is not None:
                out.names.update(_declared_names(declaration))
            elif "=" in tokens:  # TypeScript `export = X`
                ident = next((c for c in node.named_children if c.type == "identifier"), None)
                self._export_equals(root, _text(ident) if ident is not None else "", path, out)
            elif "namespace" in tokens and source is None:  # `export as namespace X` (UMD global)
                continue
            clause = next((c for c in node.named_children if c.type == "export_clause"), None)
            namespace = next((c for c in node.named_children if c.type == "namespace_export"), None)
            if clause is not None:
                for spec in clause.named_children:
                    if spec.type == "export_specifier":
                        alias = spec.child_by_field_name("alias") or spec.child_by_field_name("name")
                        out.names.add(_text(alias).strip("'\""))
            elif namespace is not None:
                out.names.update(_text(c) for c in namespace.named_children if c.type == "identifier")
            elif source is not None and declaration is None:  # export * from '...'
                self._follow(path, source, depth, out, keep_default=False)
        return found

    def _export_equals(self, root: Any, name: str, path: str, out: ExportSet) -> None:
        out.names.add("default")
        members: set[str] = set()
        opaque = False
        for node in root.named_children:
            decl = node.named_children[0] if node.type == "ambient_declaration" and node.named_children else node
            if decl.type in ("internal_module", "module"):
                ns = decl.child_by_field_name("name")
                body = decl.child_by_field_name("body")
                if ns is not None and _text(ns) == name and body is not None:
                    for inner in body.named_children:
                        target = inner.child_by_field_name("declaration") if inner.type == "export_statement" else inner
                        if target is not None and target.type == "ambient_declaration" and target.named_children:
                            target = target.named_children[0]
                        if target is not None and target.type not in (
                            "interface_declaration",
                            "type_alias_declaration",
                        ):
                            members |= _declared_names(target)
            elif decl.type in ("lexical_declaration", "variable_declaration", "class_declaration"):
                opaque = opaque or name in _declared_names(decl)
        out.names |= members
        if opaque or not members:
            out.complete = False
            out.notes.append(f"{path}: `export = {name}` whose members are typed, not declared")

    # ------------------------------------------------------------------ CommonJS
    def _cjs(self, root: Any, path: str, depth: int, out: ExportSet) -> bool:
        nodes = _walk(root)
        aliases = {"exports", "module.exports"}
        requires: dict[str, str] = {}
        for node in nodes:
            if node.type == "variable_declarator":
                name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
                if name is None or value is None or name.type != "identifier":
                    continue
                target = _require_target(value)
                if target is not None:
                    requires[_text(name)] = target
                elif _assigns_exports(value):
                    aliases.add(_text(name))
            elif node.type == "assignment_expression":
                left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
                if (
                    left is not None
                    and right is not None
                    and _text(left) == "module.exports"
                    and right.type == "identifier"
                ):
                    aliases.add(_text(right))
        found = False
        for node in nodes:
            if node.type == "assignment_expression":
                found |= self._cjs_assignment(node, path, depth, out, aliases, requires)
            elif node.type == "call_expression":
                found |= self._cjs_call(node, path, depth, out, aliases)
        if found:
            out.names.add("default")
        return found

    def _cjs_assignment(
        self, node: Any, path: str, depth: int, out: ExportSet, aliases: set[str], requires: dict[str, str]
    ) -> bool:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return False
        if left.type == "member_expression":
            obj, prop = left.child_by_field_name("object"), left.child_by_field_name("property")
            if obj is None or prop is None:
                return False
            if _text(left) == "module.exports":
                self._module_exports_value(right, path, depth, out, requires)
                return True
            if _text(obj) in aliases:
                name = _text(prop)
                out.names.add(name)
                target = _require_target(right) or (requires.get(_text(right)) if right.type == "identifier" else None)
                resolved = self.resolve(path, target) if target else None
                if resolved is not None:
                    out.modules[name] = resolved
                return True
        elif left.type == "subscript_expression":
            obj, index = left.child_by_field_name("object"), left.child_by_field_name("index")
            if obj is not None and _text(obj) in aliases:
                literal = _string_value(index)
                if literal is not None:
                    out.names.add(literal)
                else:
                    out.complete = False
                    out.notes.append(f"{path}: computed export {_text(left)}")
                return True
        return False

    def _module_exports_value(
        self, value: Any, path: str, depth: int, out: ExportSet, requires: dict[str, str]
    ) -> None:
        while value.type == "assignment_expression":
            value = value.child_by_field_name("right")
        target = _require_target(value) or (requires.get(_text(value)) if value.type == "identifier" else None)
        if target is not None:
            self._follow(path, target, depth, out, keep_default=True)
        elif value.type == "object":
            for member in value.named_children:
                if member.type == "pair":
                    key = member.child_by_field_name("key")
                    if key is not None:
                        out.names.add(_string_value(key) or _text(key))
                        req = _require_target(member.child_by_field_name("value"))
                        resolved = self.resolve(path, req) if req else None
                        if resolved is not None:
                            out.names.add(_string_value(key) or _text(key))
                            out.modules[_string_value(key) or _text(key)] = resolved
                elif member.type in ("shorthand_property_identifier", "method_definition"):
                    name = member.child_by_field_name("name") if member.type == "method_definition" else member
                    if name is not None:
                        out.names.add(_text(name))
                elif member.type == "spread_element":
                    inner = _require_target(member.named_children[0]) if member.named_children else None
                    if inner is not None:
                        self._follow(path, inner, depth, out, keep_default=False)
                    else:
                        out.complete = False
                        out.notes.append(f"{path}: spread in module.exports")
        elif value.type in ("call_expression", "new_expression", "await_expression"):
            out.complete = False
            out.notes.append(f"{path}: module.exports is the result of a call ({_text(value)[:40]})")
        elif value.type == "identifier" and not _plain_function(value, _text(value)):
            out.complete = False
            out.notes.append(f"{path}: module.exports = {_text(value)}, a value whose properties are not read")
        elif value.type in ("class", "class_declaration"):
            out.complete = False
            out.notes.append(f"{path}: module.exports is a class (its static members are not read)")

    def _cjs_call(self, node: Any, path: str, depth: int, out: ExportSet, aliases: set[str]) -> bool:
        func = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if func is None or args is None:
            return False
        fname = _text(func)
        argv = args.named_children
        if fname == "Object.defineProperty" and len(argv) >= 2 and _text(argv[0]) in aliases:
            literal = _string_value(argv[1])
            if literal is not None:
                out.names.add(literal)
            else:
                out.complete = False
            return True
        if fname.endswith(("__exportStar", "__export")) and argv:
            target = _require_target(argv[0])
            if target is not None:
                self._follow(path, target, depth, out, keep_default=False)
                return True
        if fname == "Object.assign" and len(argv) >= 2 and _text(argv[0]) in aliases:
            for extra in argv[1:]:
                if extra.type == "object":
                    self._module_exports_value(extra, path, depth, out, {})
                else:
                    out.complete = False
            return True
        return False

    def _follow(self, path: str, specifier: str, depth: int, out: ExportSet, *, keep_default: bool) -> None:
        resolved = self.resolve(path, specifier)
        if resolved is not None:
            out.merge(self.exports_of(resolved, depth + 1), keep_default=keep_default)
            return
        if not specifier.startswith(".") and depth < 12:
            name = _package_of(specifier)
            external = self.externals.get(name)
            if external is not None:
                reader = self._external_readers.get(name)
                if reader is None:
                    reader = ExportReader(external, self.externals)
                    self._external_readers[name] = reader
                entries = resolve_entries(external, specifier[len(name) :].strip("/") or None)
                sets = [reader.exports_of(f, depth + 1) for f in entries.js]
                self.wanted |= reader.wanted
                if sets:
                    merged = ExportSet(complete=any(x.complete for x in sets))
                    for one in sets:
                        merged.names |= one.names
                        if not one.complete:
                            merged.notes.extend(one.notes)
                    out.merge(merged, keep_default=keep_default)
                    return
            else:
                self.wanted.add(name)
        out.complete = False
        out.notes.append(f"{path}: re-exports {specifier!r} (outside this package)")


def _assigns_exports(value: Any) -> bool:
    """`exports`, `module.exports`, or an assignment chain that ends in one (`exports = module.exports = {}`)."""
    if _text(value) in ("exports", "module.exports"):
        return True
    if value.type == "assignment_expression":
        left = value.child_by_field_name("left")
        return left is not None and _text(left) in ("exports", "module.exports")
    return False


def _declared_names(node: Any) -> set[str]:
    if node.type == "ambient_declaration":
        return set().union(*(_declared_names(c) for c in node.named_children)) if node.named_children else set()
    if node.type in _DECLARATIONS:
        name = node.child_by_field_name("name")
        return {_text(name)} if name is not None else set()
    if node.type in ("lexical_declaration", "variable_declaration"):
        names: set[str] = set()
        for declarator in node.named_children:
            if declarator.type == "variable_declarator":
                target = declarator.child_by_field_name("name")
                if target is not None:
                    names |= {
                        _text(n)
                        for n in _walk(target)
                        if n.type in ("identifier", "shorthand_property_identifier_pattern")
                    }
        return names
    return set()


def _package_of(specifier: str) -> str:
    parts = specifier.split("/")
    return "/".join(parts[:2]) if specifier.startswith("@") and len(parts) > 1 else parts[0]


_EXPORT_CLAUSE = re.compile(
    r"export\s*\{(?P<names>[^{}]*)\}\s*(?:from\s*['\"](?P<source>[^'\"]+)['\"])?\s*;?", re.DOTALL
)


def _errors_touch_exports(root: Any) -> bool:
    """Does any node the parser could not read hold an export (so that names may be missed)?"""
    for node in _walk(root):
        if node.type == "export_statement" and _EXPORT_CLAUSE.fullmatch(_text(node).strip()):
            continue
        if (node.type == "ERROR" or node.is_missing) and _inside_clause_export(node):
            continue
        if node.type == "ERROR" or node.is_missing:
            text = _text(node)
            if not text or any(word in text for word in ("export", "exports", "require(", "define(")):
                return True
            parent = node.parent
            if parent is not None and parent.type in ("export_statement", "export_clause"):
                return True
    return False


def _plain_function(node: Any, name: str) -> bool:
    """Is `name` declared in this file as a function (its own properties are the ones assigned to it)?"""
    root = node
    while root.parent is not None:
        root = root.parent
    for child in root.named_children:
        if child.type == "function_declaration":
            ident = child.child_by_field_name("name")
            if ident is not None and _text(ident) == name:
                return True
        if child.type in ("lexical_declaration", "variable_declaration"):
            for declarator in child.named_children:
                ident = declarator.child_by_field_name("name") if declarator.type == "variable_declarator" else None
                value = declarator.child_by_field_name("value") if ident is not None else None
                if ident is not None and _text(ident) == name and value is not None:
                    return value.type in ("function_expression", "arrow_function", "function")
    return False


def _inside_clause_export(node: Any) -> bool:
    parent = node.parent
    while parent is not None and parent.type != "export_statement":
        parent = parent.parent
    return parent is not None and bool(_EXPORT_CLAUSE.fullmatch(_text(parent).strip()))
