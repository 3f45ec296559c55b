"""The JavaScript symbol gate: does `package[/subpath]` give what the answer uses, per its published files?

A use is a `JsUse`: a root (a named export; the module value a `require()` or namespace import
gives; the default export) and a path of steps on it, each a member name, a call `()`, `new`,
`await`, `:` (an instance of the type named so far: an annotation) or `arg`, `#k`, `#j` (parameter
j of a callback passed as argument k): `import {Router} from 'express'` is (export Router);
`_.debounce` after `require('lodash')` is (module; debounce); `const app = express();
app.listen()` is (module; (), listen); `new Command().option` is (export Command; new, option);
`(await axios.get(u)).data` is (default; get, (), await, data).

Following a path reads declared return types (overloads together), type arguments and their
defaults, `this`, `Promise<T>` under `await`, and the parameter types of the callbacks a signature
accepts. A member on a value reached that way whose type cannot be read completely is
unverified with the reason "receiver type unknown", the Python gate's wording.

Two readings of the package decide, and a name either of them shows is found:

* the JavaScript (`jsexports`): exported names of the entry files, followed into the packages it
  re-exports; it knows the module value's own names, never what calling or `new` gives;
* the declarations (`dts`): the package's own `.d.ts`, else `@types/<name>` of the same major
  version (another major's only finds names, never rules one out), with the packages and Node
  builtins (via @types/node) they import: `export =` values, namespaces, interfaces, call and
  construct results.

A name is missing only when a reading that covers it is complete and neither shows it; a
subpath the `exports` map does not list is `missing-subpath`. A name missing now but found in an
older release is `removed-api`. Everything else is unverified, with the reasons.
tree-sitter is imported lazily: task files import only stdlib/httpx at load time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .dts import (
    FUNCTION_MEMBERS,
    OBJECT_MEMBERS,
    DeclarationWorld,
    Members,
    Resolver,
    TypeRef,
    types_entry,
    types_package_name,
)
from .evidence import Evidence, utc_now
from .jsexports import Entries, ExportReader, ExportSet, entry_for, resolve_entries
from .npm_tarball import NpmPackageFiles, load_npm_package
from .pysymbols import SymbolVerdict
from .registry import RegistryClient
from .wheel_index import ArchiveError, older_versions, version_key

STEPS = ("()", "new", "await", ":", "arg", "[]")
RECEIVER_UNKNOWN = "receiver type unknown"  # the Python gate's wording for the same undecided case
_EXTERNAL_ROUNDS = 3


@dataclass(frozen=True)
class JsUse:
    """What the answer reaches in a package: a root and the steps taken from it."""

    root: str  # "export" | "module" | "default"
    export: str | None = None  # the export name when root == "export"
    path: tuple[str, ...] = ()
    mode: str = "import"  # how the answer loads the package: "import" or "require" (different objects)

    def label(self, package: str) -> str:
        if self.root == "export":
            text, base = f"{package}:{self.export}", self.export or ""
        else:
            text, base = package, package
        for step in self.path:
            if step == "()":
                text += "()"
            elif step == "await":
                text = f"(await {text})"
            elif step == ":":
                text = f"({text} instance)"
            elif step == "arg":
                text += "(callback parameter)"
            elif step == "[]":
                text += "[]"
            elif step.startswith("#"):
                continue
            elif step == "new":
                text = f"new {text}()" if not text.endswith("()") else f"new {text}"
            else:
                text += f".{step}"
        return text if base else package


def use_from_chain(chain: Sequence[str], *, strong: bool, source: str) -> JsUse:
    """A JsUse from an extracted chain: strong chains start at a named export, weak ones at the binding.

    `source` is the reference's: a `require()` gives module.exports; an `import` binding the
    default export, or the ES module namespace for named imports.
    """
    mode = "require" if source == "require" else "import"
    if strong:
        return JsUse("export", chain[0], tuple(chain[1:]), mode)
    return JsUse("default" if source == "import" else "module", None, tuple(chain), mode)


@dataclass
class _Reading:
    """The package's JavaScript exports and declarations, as read for one version."""

    pkg: NpmPackageFiles
    entries: Entries
    js_by_mode: dict[str, ExportSet]
    world: DeclarationWorld
    resolver: Resolver
    types_pkg: NpmPackageFiles | None
    evidence: list[Evidence] = field(default_factory=list)
    stale_types: str | None = None  # @types of another major version: they find names, never rule one out


@dataclass(frozen=True)
class _Value:
    """What is known about one value on the way along a use's path."""

    js: ExportSet | None  # names the JavaScript shows on it (module objects only)
    types: Members | None  # what the declarations say it has
    callable: bool = False


# ---------------------------------------------------------------------- reading a version
async def _load(client: RegistryClient, name: str, wanted: str | None) -> NpmPackageFiles | None:
    try:
        return await load_npm_package(client, name, wanted)
    except ArchiveError:
        return None


async def _read_version(client: RegistryClient, pkg: NpmPackageFiles, subpath: str | None) -> _Reading:
    evidence: list[Evidence] = []
    entries = resolve_entries(pkg, subpath)
    files = {mode: entry_for(pkg, subpath, mode) for mode in ("import", "require")}
    externals: dict[str, NpmPackageFiles] = {}

    def read() -> tuple[ExportReader, dict[str, ExportSet]]:
        reader = ExportReader(pkg, externals)
        sets = {
            mode: _union([reader.exports_of(f) for f in found], f"no {mode} entry file")
            for mode, found in files.items()
        }
        return reader, sets

    reader, js_by_mode = read()
    for _ in range(_EXTERNAL_ROUNDS):
        wanted = {w for w in reader.wanted if w not in externals}
        if not wanted:
            break
        for name in sorted(wanted):
            loaded = await _load(client, name, _dependency(pkg, name))
            if loaded is not None:
                externals[name] = loaded
                evidence.append(Evidence(loaded.tarball_url, 200, utc_now(), f"read {loaded.name}@{loaded.version}"))
        reader, js_by_mode = read()

    async def loader(name: str, wanted: str | None) -> NpmPackageFiles | None:
        loaded = await _load(client, name, wanted)
        if loaded is not None:
            evidence.append(Evidence(loaded.tarball_url, 200, utc_now(), f"read types {loaded.name}@{loaded.version}"))
        return loaded

    world = DeclarationWorld(loader)
    world.add_package(pkg)
    types_pkg: NpmPackageFiles | None = pkg if types_entry(pkg, subpath) is not None else None
    if types_pkg is None and not pkg.name.startswith("@types/"):
        major = version_key(pkg.version)[0][:1]
        wanted_types = f"^{major[0]}" if major else None
        types_pkg = await world.package(types_package_name(pkg.name), wanted_types)
        if types_pkg is None and wanted_types is not None:
            stale = await loader(types_package_name(pkg.name), None)
            if stale is not None:
                world.add_package(stale)
                note = f"declarations from {stale.name}@{stale.version}, not of {pkg.name}'s major version"
                return _Reading(pkg, entries, js_by_mode, world, Resolver(world), stale, evidence, note)
    return _Reading(pkg, entries, js_by_mode, world, Resolver(world), types_pkg, evidence)


def _dependency(pkg: NpmPackageFiles, name: str) -> str | None:
    for key in ("dependencies", "peerDependencies"):
        deps = pkg.manifest.get(key)
        if isinstance(deps, dict) and isinstance(deps.get(name), str):
            wanted = str(deps[name])
            return None if wanted in ("*", "latest") else wanted
    return None


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


# ---------------------------------------------------------------------- following a use
async def _types_module(reading: _Reading, subpath: str | None, mode: str) -> Members | None:
    """What the declarations say the module value is (`export =` value, or the namespace of exports)."""
    types_pkg = reading.types_pkg
    if types_pkg is None:
        return None
    path = types_entry(types_pkg, subpath, mode)
    if path is None:
        return Members().unknown(f"{types_pkg.name} declares no entry for {subpath or '.'}")
    view = await reading.world.entry(types_pkg, path)
    return await reading.resolver.exports(view)


async def _root(reading: _Reading, use: JsUse, subpath: str | None) -> tuple[_Value | None, str]:
    """The value a use starts from; None with the reason when the export is missing or undecidable."""
    resolver = reading.resolver
    js = reading.js_by_mode[use.mode]
    if use.root == "export":
        name = use.export or ""
        module = await _types_module(reading, subpath, use.mode)
        if name in js.names or (module is not None and name in module.names):
            js_module = js.modules.get(name)
            inner = ExportReader(reading.pkg).exports_of(js_module) if js_module else None
            types = await resolver.member_of(module, name) if module is not None else None
            return _Value(inner, types), "found"
        if await _declares_type(reading, subpath, use.mode, name):
            return _Value(None, Members().unknown(f"{name} is a type, not a value")), "found"
        gone = _absent(js, _trusted(reading, module), name, "exports")
        if gone is not None:
            return None, f"missing: {gone}"
        return None, f"unknown: {_why(reading, _Value(js, module))}"
    if use.root == "module" or not _has_esm_default(reading, js):
        module = await _types_module(reading, subpath, use.mode)
        if module is not None and (use.mode == "require" or use.root == "default"):
            module = await _with_default_interop(resolver, module)
        return _Value(js, module, callable=module is not None and bool(module.calls)), "found"
    module = await _types_module(reading, subpath, "import")
    default = await resolver.member_of(module, "default") if module is not None else None
    return _Value(None, default, callable=default is not None and bool(default.calls)), "found"


async def _declares_type(reading: _Reading, subpath: str | None, mode: str, name: str) -> bool:
    """Whether the declarations export `name` as a type (an interface or alias), which no JavaScript shows."""
    types_pkg = reading.types_pkg
    path = types_entry(types_pkg, subpath, mode) if types_pkg is not None else None
    if types_pkg is None or path is None:
        return False
    view = await reading.world.entry(types_pkg, path)
    decls = await reading.resolver.export_decls(view, name)
    return any(d.kind in ("interface", "type") for d in decls)


async def _with_default_interop(resolver: Resolver, module: Members) -> Members:
    """A CommonJS module declared with ES exports (`export { default } from "./Redis"`): at run time
    `require()` gives the default export itself (ioredis, many compiled packages), so its members count too.
    """
    if module.calls or module.classes or module.constructs or "default" not in module.names:
        return module
    merged = Members()
    merged.absorb(module)
    merged.absorb(await resolver.member_of(module, "default"))
    return merged


def _has_esm_default(reading: _Reading, js: ExportSet) -> bool:
    """The import entry is an ES module with its own default export (a CommonJS one's default is module.exports)."""
    files = entry_for(reading.pkg, None, "import")
    return any(f.endswith(".mjs") or _looks_esm(reading.pkg, f) for f in files) and "default" in js.names


def _looks_esm(pkg: NpmPackageFiles, path: str) -> bool:
    if path.endswith(".cjs"):
        return False
    text = pkg.texts.get(path, "")
    return pkg.manifest.get("type") == "module" or "export default" in text or "export {" in text


def _trusted(reading: _Reading, types: Members | None) -> Members | None:
    """The declarations when they may rule a name out: not those of another major version."""
    if types is None or reading.stale_types is None:
        return types
    return Members(names=set(types.names)).unknown(reading.stale_types)


def _absent(js: ExportSet | None, types: Members | None, name: str, what: str) -> str | None:
    """None when `name` may still exist; else why it does not (a complete reading without it)."""
    if js is not None and js.complete:
        return f"the JavaScript {what} no {name!r}"
    if types is not None and types.complete:
        why = "the JavaScript is not fully readable; " if js is not None else ""
        return f"{why}the declarations (.d.ts) give no {name!r}"
    return None


async def _step(reading: _Reading, value: _Value, step: str) -> _Value:
    resolver = reading.resolver
    if step == "()":
        return _Value(None, await resolver.call_result(value.types) if value.types is not None else None)
    if step == "new":
        return _Value(None, await resolver.construct_result(value.types) if value.types is not None else None)
    if step == "await":
        return _Value(None, await resolver.await_result(value.types) if value.types is not None else None)
    if step == "arg":
        return _Value(None, Members().unknown("a callback's parameter (where it is passed is not known)"))
    if step == "[]":
        return _Value(None, await resolver.element_result(value.types) if value.types is not None else None)
    js_module = value.js.modules.get(step) if value.js is not None else None
    inner = ExportReader(reading.pkg).exports_of(js_module) if js_module else None
    types = await resolver.member_of(value.types, step) if value.types is not None else None
    return _Value(inner, types, callable=types is not None and bool(types.calls))


def _numbers(steps: Sequence[str]) -> tuple[int, int] | None:
    """(argument, parameter) from the "#k", "#j" steps after "arg"."""
    if len(steps) != 2 or not all(s.startswith("#") and s[1:].isdigit() for s in steps):
        return None
    return int(steps[0][1:]), int(steps[1][1:])


def _has(value: _Value, name: str) -> bool:
    if name in OBJECT_MEMBERS or (value.callable and name in FUNCTION_MEMBERS):
        return True
    return (value.js is not None and name in value.js.names) or (value.types is not None and name in value.types.names)


def _why(reading: _Reading, value: _Value) -> str:
    """Why a name on this value cannot be decided."""
    if reading.stale_types is not None and value.types is not None and value.types.complete:
        return reading.stale_types
    return _unknown(value)


def _unknown(value: _Value) -> str:
    notes: list[str] = []
    if value.js is not None:
        notes.extend(value.js.notes)
    if value.types is None:
        notes.append("no type declarations")
    else:
        notes.extend(value.types.notes)
    return "; ".join(dict.fromkeys(notes)) or "not readable statically"


async def _instance(reading: _Reading, subpath: str | None, use: JsUse, upto: int) -> Members:
    """Members of a value annotated with a type the package exports (`res: Response`, `c: pg.Client`)."""
    types_pkg = reading.types_pkg
    path = types_entry(types_pkg, subpath, use.mode) if types_pkg is not None else None
    if types_pkg is None or path is None:
        return Members().unknown("no type declarations")
    resolver = reading.resolver
    view = await reading.world.entry(types_pkg, path)
    head = [use.export or ""] if use.root == "export" else []
    if use.root == "default" and _has_esm_default(reading, reading.js_by_mode[use.mode]):
        head = ["default"]
    names = [*head, *use.path[:upto]]
    if not names:  # the module value itself is the class (`export = Redis`): its instances
        module = await resolver.exports(view)
        return await resolver.construct_result(module)
    decls = await resolver.export_decls(view, names[0])
    for name in names[1:]:
        decls = await resolver.member_decls(decls, name, 0)
    if not decls:
        return Members().unknown(f"no declaration of the type {'.'.join(names)}")
    name_node = decls[0].node.child_by_field_name("name") if decls[0].node is not None else None
    return await resolver.type_of_decls(TypeRef(name_node, decls[0].scope), decls, names[-1], 0, [])


async def _judge_use(reading: _Reading, subpath: str | None, use: JsUse) -> tuple[str, str]:
    label = f"{reading.pkg.name}@{reading.pkg.version}"
    if ":" in use.path:  # an annotated value: start from the type, not from the value of that name
        start = use.path.index(":")
        instance = _Value(None, await _instance(reading, subpath, use, start))
        return await _walk(reading, use, instance, start + 1, label)
    value, state = await _root(reading, use, subpath)
    if value is None:
        kind, _, why = state.partition(": ")
        if kind == "missing":
            return "missing-symbol", f"{label}: {why}"
        return "unverified", f"{label}: export {use.export!r} not decidable: {why}"
    if use.root == "export" and not use.path:
        return "found", f"{label}: {use.export} exported"
    return await _walk(reading, use, value, 0, label)


async def _walk(reading: _Reading, use: JsUse, value: _Value, first: int, label: str) -> tuple[str, str]:
    """Follow the use's steps from `first` on, deciding each member name on the value reached."""
    for position, step in enumerate(use.path[first:], start=first):
        where = JsUse(use.root, use.export, use.path[:position]).label(reading.pkg.name)
        if step.startswith("#"):
            continue  # the argument and parameter numbers of a preceding "arg"
        if step == "arg" and _numbers(use.path[position + 1 : position + 3]) is not None and value.types is not None:
            argument, parameter = _numbers(use.path[position + 1 : position + 3]) or (0, 0)
            value = _Value(None, await reading.resolver.callback_parameter(value.types, argument, parameter))
            continue
        if step in STEPS:
            value = await _step(reading, value, step)
            continue
        if not _has(value, step):
            reason = _absent(value.js, _trusted(reading, value.types), step, "object has")
            if reason is not None and "arg" in use.path[position:]:
                # The call a callback is passed to is a use of its own, judged there (not counted twice).
                return "unverified", f"{RECEIVER_UNKNOWN}: {where} has no {step!r}, the callback's call is judged alone"
            if reason is not None:
                return "missing-symbol", f"{label}: {where} has no {step!r} ({reason})"
            if any(s in STEPS for s in use.path[:position]):
                # A value the answer got back from the package, whose declared type is not (fully) known.
                return "unverified", f"{RECEIVER_UNKNOWN}: {where}.{step} in {label}: {_why(reading, value)}"
            return "unverified", f"{label}: {where}.{step} not decidable: {_why(reading, value)}"
        if position == len(use.path) - 1:
            return "found", f"{label}: {where} has {step!r}"
        value = await _step(reading, value, step)
    return "found", f"{label}: {use.label(reading.pkg.name)} resolves"


# ---------------------------------------------------------------------- the gate
async def _judge_version(
    client: RegistryClient, pkg: NpmPackageFiles, subpath: str | None, uses: Sequence[JsUse]
) -> tuple[str, str, list[Evidence]]:
    entries = resolve_entries(pkg, subpath)
    label = f"{pkg.name}@{pkg.version}"
    if entries.missing is not None:
        return "missing-subpath", entries.missing, []
    if not entries.js and not entries.types:
        return "unverified", f"{label}: entry files named by package.json are not in the tarball", []
    if not uses:
        return "found", f"{label}: {subpath or '.'} resolves to {', '.join(entries.js + entries.types)}", []
    reading = await _read_version(client, pkg, subpath)
    results = [await _judge_use(reading, subpath, use) for use in uses]
    missing = [r for v, r in results if v == "missing-symbol"]
    unsure = [r for v, r in results if v == "unverified"]
    if missing:
        return "missing-symbol", "; ".join(missing), reading.evidence
    if unsure:
        return "unverified", "; ".join(unsure), reading.evidence
    return "found", "; ".join(r for _, r in results), reading.evidence


async def check_js_use(
    client: RegistryClient,
    package: str,
    subpath: str | None,
    uses: Sequence[JsUse],
    version: str | None = None,
) -> SymbolVerdict:
    """Check an npm specifier and the uses the answer makes of it (all must be found to be found)."""
    try:
        pkg = await load_npm_package(client, package, version)
    except ArchiveError as exc:
        why = exc.reason if exc.reason.startswith(("registry:", "no version")) else f"download failed: {exc.reason}"
        return SymbolVerdict("unverified", why, package, (), exc.evidence)
    label = f"{pkg.name}@{pkg.version}"
    verdict, reason, read = await _judge_version(client, pkg, subpath, uses)
    evidence = [
        *pkg.evidence,
        Evidence(pkg.tarball_url, 200, utc_now(), f"read {len(pkg.paths)} files, {pkg.bytes_read} bytes"),
        *read,
    ]
    if verdict in ("missing-symbol", "missing-subpath"):
        for old in older_versions(list(pkg.versions), pkg.version, client.settings.older_releases_checked):
            try:
                old_pkg = await load_npm_package(client, package, old)
            except ArchiveError as exc:
                evidence.extend(exc.evidence)
                continue
            evidence.append(Evidence(old_pkg.tarball_url, 200, utc_now(), f"read {old_pkg.name}@{old}"))
            old_verdict, old_reason, old_read = await _judge_version(client, old_pkg, subpath, uses)
            evidence.extend(old_read)
            if old_verdict == "found":
                return SymbolVerdict(
                    "removed-api", f"{reason}; but present in {old} ({old_reason})", label, (), tuple(evidence)
                )
    return SymbolVerdict(verdict, reason, label, (), tuple(evidence))


async def check_js_symbol(
    client: RegistryClient,
    package: str,
    subpath: str | None,
    names: Sequence[str],
    version: str | None = None,
) -> SymbolVerdict:
    """Named exports (`"a.b"` = member b of export a), as the earlier gate took them."""
    uses = [JsUse("export", n.split(".")[0], tuple(n.split(".")[1:])) for n in names]  # ES named imports
    return await check_js_use(client, package, subpath, uses, version)
