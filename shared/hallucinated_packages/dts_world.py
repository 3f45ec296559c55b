"""Which declaration files a specifier names, loading the packages that hold them on demand.

A bare specifier is looked up the way TypeScript finds types: ambient `declare module "x"`
blocks in the packages already loaded, Node's builtins in @types/node, else the package's own
declarations (`exports` conditions `types`, `import`/`require`, `node`, `default`; `types`,
`typings`, `main`, `index.d.ts`), else `@types/<name>` (the importing package's own dependency
first). Relative specifiers map `./x.js` to `x.d.ts` (and to `x.d.mts` from a `.d.mts` file).
Augmentations in any file of a package join the module they target, and an `export =`
module's namespace takes them in. Embedded: standard library only at module level.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Awaitable, Callable
from typing import Any

from .dts_scopes import Decl, DtsFile, ModuleView, Scope, _read_file, _text
from .npm_tarball import NpmPackageFiles
from .stdlib_names import node_builtin

MAX_DEPTH = 24
_DTS = (".d.ts", ".d.mts", ".d.cts")
_AMBIENT = re.compile(r"""declare\s+module\s+['"]([^'"]+)['"]""")
_PATH_REFERENCE = re.compile(r"""///\s*<reference\s+path=['"]([^'"]+)['"]""")

PackageLoader = Callable[[str, str | None], Awaitable[NpmPackageFiles | None]]


# ---------------------------------------------------------------------- the world
class DeclarationWorld:
    """The declarations of one package and of whatever packages its types import, loaded on demand."""

    def __init__(self, loader: PackageLoader) -> None:
        self.loader = loader
        self.packages: dict[str, NpmPackageFiles | None] = {}
        self.files: dict[tuple[str, str], DtsFile] = {}
        self._globals: dict[str, list[Decl]] = {}

    def add_package(self, pkg: NpmPackageFiles) -> None:
        if self.packages.get(pkg.name) is None:
            self.packages[pkg.name] = pkg
            self._globals.clear()  # a new package may declare more global names

    async def package(self, name: str, wanted: str | None = None) -> NpmPackageFiles | None:
        if name not in self.packages:
            loaded = await self.loader(name, wanted)
            if loaded is None:
                self.packages[name] = None  # not asked again; the names it would give stay unresolved
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
