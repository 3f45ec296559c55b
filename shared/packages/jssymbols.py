"""The JavaScript symbol gate: does `package[/subpath]` export `names`, per the published tarball?

Entry points come from package.json the way Node resolves them: `exports` (conditions, subpath
patterns, null exclusions) first, else `main`/`module`/`index.js`, with file-path subpaths when
there is no `exports` map. A subpath `exports` does not list is `missing-subpath` (Node refuses
to load it). Exported names are read statically with tree-sitter from ESM (`export ...`,
`export * from` followed inside the package) and CommonJS (`exports.x =`, `module.exports =
{...}`, `module.exports = require(...)`, `Object.defineProperty(exports, ...)`, TS
`__exportStar`). What static reading cannot settle (UMD, `module.exports = factory()`,
computed `exports[name] =`) falls back to `.d.ts` declarations, then `@types/<pkg>`, else is
`unverified`. tree-sitter is imported lazily: task files import only stdlib/httpx at load time.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .evidence import Evidence, utc_now
from .npm_tarball import NpmPackageFiles, load_npm_package
from .pysymbols import SymbolVerdict
from .registry import RegistryClient
from .wheel_index import ArchiveError, older_versions

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
    """Exported names of files in one package, following in-package re-exports."""

    def __init__(self, pkg: NpmPackageFiles) -> None:
        self.pkg = pkg
        self._cache: dict[str, ExportSet] = {}

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
        if tree.root_node.has_error:
            out.complete = False
            out.notes.append(f"{path} has syntax the parser could not read")
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
        elif value.type == "call_expression":
            out.complete = False
            out.notes.append(f"{path}: module.exports is the result of a call ({_text(value)[:40]})")

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
        if resolved is None:
            out.complete = False
            out.notes.append(f"{path}: re-exports {specifier!r} (outside this package)")
            return
        out.merge(self.exports_of(resolved, depth + 1), keep_default=keep_default)


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


# ---------------------------------------------------------------------- the gate
@dataclass(frozen=True)
class _NameResult:
    verdict: str  # found | missing | unverified
    reason: str


def _judge_names(pkg: NpmPackageFiles, entries: Entries, names: Sequence[str], types_pkg: NpmPackageFiles | None,
                 types_entries: Entries | None) -> dict[str, _NameResult]:  # fmt: skip
    reader = ExportReader(pkg)
    js = _union([reader.exports_of(f) for f in entries.js], "no JavaScript entry file")
    types: ExportSet | None = None
    type_sets = [reader.exports_of(f) for f in entries.types]
    if types_pkg is not None and types_entries is not None:
        type_reader = ExportReader(types_pkg)
        type_sets += [type_reader.exports_of(f) for f in types_entries.types or types_entries.js]
    if type_sets:
        types = _union(type_sets, "no type declarations")
    results: dict[str, _NameResult] = {}
    for name in names:
        head, _, member = name.partition(".")
        if head in js.names:
            if not member:
                results[name] = _NameResult("found", f"{head} exported by {', '.join(entries.js)}")
                continue
            module = js.modules.get(head)
            if module is None:
                results[name] = _NameResult("unverified", f"{head} is a value; member {member!r} not checkable")
                continue
            inner = reader.exports_of(module)
            if member in inner.names:
                results[name] = _NameResult("found", f"{name}: {member} exported by {module}")
            elif inner.complete:
                results[name] = _NameResult("missing", f"{module} exports no {member!r}")
            else:
                results[name] = _NameResult("unverified", f"{module}: {'; '.join(inner.notes)}")
            continue
        if types is not None and head in types.names:
            # Declared in .d.ts only: a type (interface, type alias) or a value the JS hides from us.
            results[name] = _NameResult("found" if not member else "unverified", f"{head} declared in .d.ts")
        elif js.complete:
            results[name] = _NameResult("missing", f"{', '.join(entries.js)} export no {head!r}")
        elif types is not None and types.complete:
            results[name] = _NameResult("missing", f"neither the JavaScript (unreadable) nor .d.ts declares {head!r}")
        else:
            why = "; ".join(js.notes + (types.notes if types else ["no type declarations"]))
            results[name] = _NameResult("unverified", why)
    return results


def _union(sets: list[ExportSet], empty_note: str) -> ExportSet:
    """Names exported by any condition's entry; complete when at least one entry was read fully.

    Dual packages mirror their ESM and CJS entries, and a name absent from an entry that static
    reading understood completely cannot be imported through that entry.
    """
    if not sets:
        return ExportSet(complete=False, notes=[empty_note])
    out = ExportSet(complete=any(s.complete for s in sets))
    for one in sets:
        out.names |= one.names
        out.modules.update(one.modules)
        if not one.complete:
            out.notes.extend(one.notes)
    return out


def _types_package_name(package: str) -> str:
    if package.startswith("@"):
        scope, _, name = package[1:].partition("/")
        return f"@types/{scope}__{name}"
    return f"@types/{package}"


async def _types_fallback(
    client: RegistryClient, pkg: NpmPackageFiles, subpath: str | None
) -> tuple[NpmPackageFiles | None, Entries | None]:
    if pkg.name.startswith("@types/"):
        return None, None
    try:
        types_pkg = await load_npm_package(client, _types_package_name(pkg.name))
    except ArchiveError:
        return None, None
    entries = resolve_entries(types_pkg, subpath)
    if entries.missing is not None:
        return types_pkg, None
    if not entries.types:
        entries.types = [f for f in entries.js if f.endswith(".d.ts")] or _existing(
            types_pkg, [subpath or "index"], _DTS_EXTENSIONS
        )
    return types_pkg, entries


async def _judge_version(
    client: RegistryClient, pkg: NpmPackageFiles, subpath: str | None, names: Sequence[str]
) -> tuple[str, str]:
    entries = resolve_entries(pkg, subpath)
    label = f"{pkg.name}@{pkg.version}"
    if entries.missing is not None:
        return "missing-subpath", entries.missing
    if not entries.js and not entries.types:
        return "unverified", f"{label}: entry files named by package.json are not in the tarball"
    if not names:
        return "found", f"{label}: {subpath or '.'} resolves to {', '.join(entries.js + entries.types)}"
    results = _judge_names(pkg, entries, names, None, None)
    if any(r.verdict == "unverified" for r in results.values()) and not entries.types:
        types_pkg, types_entries = await _types_fallback(client, pkg, subpath)
        if types_pkg is not None and types_entries is not None:
            pkg.evidence.append(
                Evidence(types_pkg.tarball_url, 200, utc_now(), f"read {types_pkg.name}@{types_pkg.version}")
            )
            results = _judge_names(pkg, entries, names, types_pkg, types_entries)
    missing = [n for n, r in results.items() if r.verdict == "missing"]
    unsure = [n for n, r in results.items() if r.verdict == "unverified"]
    if missing:
        return "missing-symbol", f"{label}: " + "; ".join(results[n].reason for n in missing)
    if unsure:
        return "unverified", f"{label}: " + "; ".join(results[n].reason for n in unsure)
    return "found", f"{label}: " + "; ".join(r.reason for r in results.values())


async def check_js_symbol(
    client: RegistryClient,
    package: str,
    subpath: str | None,
    names: Sequence[str],
    version: str | None = None,
) -> SymbolVerdict:
    """Check an npm specifier and the names imported from it (`"a.b"` = member b of export a)."""
    try:
        pkg = await load_npm_package(client, package, version)
    except ArchiveError as exc:
        why = exc.reason if exc.reason.startswith(("registry:", "no version")) else f"download failed: {exc.reason}"
        return SymbolVerdict("unverified", why, package, (), exc.evidence)
    label = f"{pkg.name}@{pkg.version}"
    verdict, reason = await _judge_version(client, pkg, subpath, names)
    evidence = [
        *pkg.evidence,
        Evidence(pkg.tarball_url, 200, utc_now(), f"read {len(pkg.paths)} files, {pkg.bytes_read} bytes"),
    ]
    if verdict in ("missing-symbol", "missing-subpath"):
        for old in older_versions(list(pkg.versions), pkg.version, client.settings.older_releases_checked):
            try:
                old_pkg = await load_npm_package(client, package, old)
            except ArchiveError as exc:
                evidence.extend(exc.evidence)
                continue
            evidence.append(Evidence(old_pkg.tarball_url, 200, utc_now(), f"read {old_pkg.name}@{old}"))
            old_verdict, old_reason = await _judge_version(client, old_pkg, subpath, names)
            if old_verdict == "found":
                return SymbolVerdict(
                    "removed-api", f"{reason}; but present in {old} ({old_reason})", label, (), tuple(evidence)
                )
    return SymbolVerdict(verdict, reason, label, (), tuple(evidence))
