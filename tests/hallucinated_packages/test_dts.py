"""The TypeScript declaration model on small in-memory packages: what it finds, and when it says it cannot tell."""

from __future__ import annotations

import asyncio

from hallubench.hallucinated_packages.dts import DeclarationWorld, Members, Resolver
from hallubench.hallucinated_packages.npm_tarball import NpmPackageFiles


def package(name: str, files: dict[str, str], **manifest: object) -> NpmPackageFiles:
    return NpmPackageFiles(name, "1.0.0", f"mem://{name}", {"types": "index.d.ts", **manifest}, frozenset(files), files)


def exports(main: NpmPackageFiles, *others: NpmPackageFiles, entry: str = "index.d.ts") -> Members:
    index = {p.name: p for p in others}

    async def loader(name: str, wanted: str | None) -> NpmPackageFiles | None:
        return index.get(name)

    async def go() -> Members:
        world = DeclarationWorld(loader)
        return await Resolver(world).exports(await world.entry(main, entry))

    return asyncio.run(go())


def test_aliases_that_lead_back_to_themselves_are_undecidable_not_a_crash() -> None:
    found = exports(package("cyc", {"index.d.ts": "import a = b.c;\nimport b = a.d;\nexport = a;\n"}))
    assert not found.complete


def test_an_index_signature_admits_any_name() -> None:
    found = exports(package("dict", {"index.d.ts": "interface Bag { [key: string]: number; size: number }\n"
                                                   "declare const bag: Bag;\nexport = bag;\n"}))  # fmt: skip
    assert "size" in found.names and not found.complete


def test_node_prefixed_and_bare_builtins_that_reexport_each_other_are_read_once() -> None:
    node = package(
        "@types/node",
        {"index.d.ts": '/// <reference path="fs.d.ts" />\n',
         "fs.d.ts": 'declare module "node:fs" {\n  export function readFile(p: string): void;\n}\n'
                    'declare module "fs" {\n  export * from "node:fs";\n}\n'},
    )  # fmt: skip
    extra = package("fsx", {"index.d.ts": 'export * from "fs";\nexport function readJson(p: string): unknown;\n'})
    found = exports(extra, node)
    assert {"readFile", "readJson"} <= found.names and found.complete


def test_interfaces_merge_across_augmentations_of_an_export_equals_module() -> None:
    lodashy = package(
        "@types/lodashy",
        {"index.d.ts": '/// <reference path="./a.d.ts" />\nexport = _;\ndeclare const _: _.Static;\n'
                       "declare namespace _ { interface Static {} }\n",
         "a.d.ts": 'import _ = require("./index");\ndeclare module "./index" {\n'
                   "  interface Static { chunk(): Wrapped; }\n  interface Wrapped { value(): unknown; }\n}\n",
         "b.d.ts": 'import _ = require("./index");\ndeclare module "./index" {\n'
                   "  interface Static { debounce(): void; }\n  interface Wrapped { map(): Wrapped; }\n}\n"},
    )  # fmt: skip
    found = exports(lodashy)
    assert {"chunk", "debounce"} <= found.names and found.complete
    assert "deepMergeAll" not in found.names


def test_variance_and_const_modifiers_on_type_parameters_are_read() -> None:
    zodish = package(
        "zodish",
        {"index.d.ts": "export interface ZodObject<\n/** @ts-ignore */\nout Shape, in out T, const C> {\n"
                       "  extend(): this;\n}\nexport declare function object(): ZodObject<{}, 0, 1>;\n"},
    )  # fmt: skip
    found = exports(zodish)
    assert {"ZodObject", "object"} <= found.names and found.complete
