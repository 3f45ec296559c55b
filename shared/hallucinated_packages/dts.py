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
* what calling a value returns (`express()` -> `core.Express`), what `new` makes and what `await`
  gives (T of a `Promise<T>`), with type parameters bound to the arguments written or their
  defaults (`dts_generics`), and `this` standing for the type first named.

A member set is *complete* only when every part of it was read; anything else (a mapped,
conditional or generic type, an index signature, `any`, a type from a package that could not be
loaded) makes it incomplete, and an incomplete set never lets a name be called missing. Every
object has the members of `Object.prototype` and every function those of `Function.prototype`.
Files are read into scopes by `dts_scopes`; `dts_world` finds and loads them. Embedded: standard
library only at module level.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .dts_generics import (
    ARRAY_MEMBERS,
    FUNCTION_MEMBERS,
    LIB_TYPES,
    OBJECT_MEMBERS,
    PREDEFINED,
    PROMISE_MEMBERS,
    Env,
    TypeRef,
    bind_parameters,
    bound,
    signature_of,
    type_arguments,
)
from .dts_scopes import Decl, ModuleView, Scope, _text
from .dts_world import MAX_DEPTH, DeclarationWorld, types_entry, types_package_name

__all__ = [
    "FUNCTION_MEMBERS", "OBJECT_MEMBERS", "DeclarationWorld", "Members", "Resolver", "TypeRef", "types_entry",
    "types_package_name",
]  # fmt: skip
_VALUE_KINDS = frozenset({"var", "function", "class", "enum", "namespace"})
_EMPTY_TYPES = frozenset({"null", "undefined", "void", "never"})


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
    awaited: list[TypeRef] = field(default_factory=list)  # what `await` gives, when this is a Promise
    returns_promise: bool = False  # a Promise's `then`/`catch`/`finally`: calling it gives a promise
    elements: list[TypeRef] = field(default_factory=list)  # an array's element types (`x[0]`, `for of`)
    array_calls: list[tuple[str, tuple[TypeRef, ...]]] = field(default_factory=list)  # (method, elements)
    await_partial: bool = False  # a union of promises and other types: `await` gives more than `awaited`

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
        self.awaited.extend(other.awaited)
        self.returns_promise |= other.returns_promise
        self.elements.extend(other.elements)
        self.array_calls.extend(other.array_calls)
        self.await_partial |= other.await_partial
        if not other.complete:
            self.complete = False
            for note in other.notes:
                if note not in self.notes and len(self.notes) < 6:
                    self.notes.append(note)

    def why(self) -> str:
        return "; ".join(self.notes) or "declarations not fully readable"


# ---------------------------------------------------------------------- resolution
class Resolver:
    """Answers member questions over a DeclarationWorld; every answer says whether it is complete."""

    def __init__(self, world: DeclarationWorld) -> None:
        self.world = world
        self._seen: set[tuple[int, str]] = set()
        self._expanding: set[int] = set()
        self._exporting: set[tuple[int, str]] = set()
        self._following: set[int] = set()

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
        """Imports and aliases replaced by what they refer to (an alias that leads back to itself: unreadable)."""
        out: list[Decl] = []
        for decl in decls:
            if depth > MAX_DEPTH:
                break
            if decl.kind in ("import", "alias") and id(decl) in self._following:
                out.append(Decl("unreadable", decl.name, decl.node, decl.scope, spec="a cycle of aliases"))
                continue
            self._following.add(id(decl))
            try:
                out.extend(await self._follow_one(decl, depth))
            finally:
                self._following.discard(id(decl))
        return out

    async def _follow_one(self, decl: Decl, depth: int) -> list[Decl]:
        out: list[Decl] = []
        if decl.kind == "import" and decl.spec is not None:
            module = await self._module_from(decl.scope, decl.spec, depth)
            if module is None:
                return [Decl("unreadable", decl.name, decl.node, decl.scope, spec=decl.spec)]
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
            elif kind == "promise":  # `then`, `catch`, `finally`: a promise of what the callback returns
                method = Members(names=set(OBJECT_MEMBERS | FUNCTION_MEMBERS), returns_promise=True)
                out.absorb(method)
            elif kind == "array":  # an array method: its callback and result follow the element type
                method = Members(names=set(OBJECT_MEMBERS | FUNCTION_MEMBERS))
                method.array_calls.append((name, payload))
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
        if value.returns_promise:
            out.names |= PROMISE_MEMBERS
            _promise_methods(out)
            out.await_partial = True  # what the callback returns is not followed
        for method, elements in value.array_calls:
            if method in _ELEMENT_RESULTS:
                for element in elements:
                    out.absorb(await self.type_members(element, depth + 1))
            elif method in _SAME_ARRAY_RESULTS:
                out.names |= ARRAY_MEMBERS
                _array_methods(out, list(elements))
            elif method in _NUMBER_RESULTS:
                out.names |= PREDEFINED["number"]
            elif method in _BOOLEAN_RESULTS:
                out.names |= PREDEFINED["boolean"]
            elif method == "join":
                out.names |= PREDEFINED["string"]
            elif method == "forEach":
                pass
            else:  # map, flatMap: an array of what the callback returns
                out.names |= ARRAY_MEMBERS
        if not value.calls:
            if value.returns_promise or value.array_calls:
                return out
            return out.unknown("not callable according to its declarations")
        for ref in value.calls:
            if ref.node is None:
                out.unknown("a call signature without a return type")
            else:
                out.absorb(await self.type_members(_with_signature_env(ref), depth + 1))
        return out

    async def callback_parameter(self, value: Members, argument: int, parameter: int, depth: int = 0) -> Members:
        """Members of parameter `parameter` of a callback passed as argument `argument` of a call of `value`.

        Every overload that takes a function there counts (`app.get(path, (req, res) => ...)` reads
        `res` from each handler type the overloads accept), so a name is ruled out only when no
        overload's callback parameter has it.
        """
        out = Members()
        taken = False
        for method, elements in value.array_calls:
            if argument == 0 and method in _ELEMENT_CALLBACKS and parameter < _ELEMENT_CALLBACKS[method]:
                taken = True
                for element in elements:
                    out.absorb(await self.type_members(element, depth + 1))
        for ref in value.calls:
            signature = signature_of(ref.node)
            written = _parameter_type(signature, argument)
            if written is None:
                continue
            accepted = await self.type_members(TypeRef(written, ref.scope, _with_signature_env(ref).env), depth + 1)
            if not accepted.calls:
                if not accepted.complete:
                    out.unknown(f"argument {argument + 1}: {accepted.why()}")
                continue
            for callback in accepted.calls:
                given = _parameter_type(signature_of(callback.node), parameter)
                if given is None:
                    continue
                taken = True
                env = _with_signature_env(callback).env
                out.absorb(await self.type_members(TypeRef(given, callback.scope, env), depth + 1))
        if not taken:
            return out.unknown("no declared callback parameter there")
        return out

    async def element_result(self, value: Members, depth: int = 0) -> Members:
        """Members of an element of the value (`rows[0]`, `for (const row of rows)`)."""
        if not value.elements:
            return Members().unknown("not an array of a known element type")
        out = Members()
        for element in value.elements:
            out.absorb(await self.type_members(element, depth + 1))
        return out

    async def await_result(self, value: Members, depth: int = 0) -> Members:
        """Members of what `await value` gives: T for a Promise<T>, the value itself for anything else."""
        if value.await_partial:
            return Members().unknown("what awaiting gives is not known (a callback's result, or a promise or not)")
        if not value.awaited:
            return value
        out = Members()
        for ref in value.awaited:
            out.absorb(await self.type_members(ref, depth + 1))
        return out

    async def construct_result(self, value: Members, depth: int = 0) -> Members:
        """Members of what `new` on the value makes (class instances, construct signatures)."""
        out = Members()
        if not value.classes and not value.constructs:
            return out.unknown("not constructible according to its declarations")
        for decl in value.classes:
            out.absorb(await self._class_side(decl, static=False, depth=depth + 1, env=_class_env(decl)))
        for ref in value.constructs:
            out.absorb(await self.type_members(_with_signature_env(ref), depth + 1))
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
            return await self.type_members(ref.child(node.named_children[-1]), depth + 1)
        if kind == "generic_type":
            name = node.child_by_field_name("name")
            if name is None:
                return out.unknown(f"type `{_text(node)[:40]}` is not modelled")
            return await self._named_type(ref, _text(name), depth, type_arguments(ref))
        if kind in ("type_identifier", "nested_type_identifier", "identifier"):
            text = _text(node)
            is_parameter, value = bound(ref.env, text)
            if is_parameter:
                if value is None:
                    return out.unknown(f"generic type {text} (inferred from arguments)")
                inner = await self.type_members(value, depth + 1)
                if value.at_least:
                    inner.unknown(f"generic type {text}: only its constraint is known")
                return inner
            return await self._named_type(ref, text, depth, [])
        if kind == "this_type":
            _, this = bound(ref.env, "this")
            if this is None:
                return out.unknown("`this` type outside a class or interface")
            return await self.type_members(this, depth + 1)
        if kind in ("array_type", "tuple_type"):
            out.names |= ARRAY_MEMBERS
            parts = node.named_children[:1] if kind == "array_type" else node.named_children
            _array_methods(out, [ref.child(p) for p in parts])
            return out
        if kind == "conditional_type":
            return await self._conditional(ref, depth)
        if kind == "member_expression":  # `import("node:stream").Duplex`
            return await self._import_type(ref, depth)
        if kind == "object_type":
            out.names |= OBJECT_MEMBERS
            self._object_body(node, ref.scope, out, ref.env)
            return out
        if kind in ("intersection_type", "union_type"):
            promises = others = 0
            for part in node.named_children:
                if part.type == "predefined_type" and _text(part) in _EMPTY_TYPES:
                    continue
                if part.type == "literal_type" and _text(part) in ("null", "undefined"):
                    continue
                inner = await self.type_members(ref.child(part), depth + 1)
                promises, others = promises + bool(inner.awaited), others + (not inner.awaited)
                out.absorb(inner)
            out.await_partial |= kind == "union_type" and promises > 0 and others > 0
            return out
        if kind == "type_query" and node.named_children:
            decls = await self.value_decls(ref.scope, _text(node.named_children[0]))  # `typeof x`
            return await self.value_members(decls, depth + 1)
        if kind in ("function_type",):
            out.names |= OBJECT_MEMBERS | FUNCTION_MEMBERS
            returned = node.child_by_field_name("return_type")
            out.calls.append(ref.child(returned))
            return out
        if kind == "constructor_type":
            out.names |= OBJECT_MEMBERS | FUNCTION_MEMBERS
            out.constructs.append(ref.child(node.child_by_field_name("type")))
            return out
        if kind == "predefined_type":
            text = _text(node)
            if text in PREDEFINED:
                out.names |= PREDEFINED[text]
                return out
            if text in _EMPTY_TYPES:
                return out
            return out.unknown(f"type {text}")
        return out.unknown(f"{kind.replace('_', ' ')} `{_text(node)[:40]}` is not modelled")

    async def _conditional(self, ref: TypeRef, depth: int) -> Members:
        """`C extends X ? A : B`: A when C stands for X itself (axios: `R = AxiosResponseDefault`), else both.

        Both branches together only ever add names, so a name absent from both is absent from
        whichever TypeScript would pick.
        """
        node = ref.node
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        yes, no = node.child_by_field_name("consequence"), node.child_by_field_name("alternative")
        if yes is None or no is None:
            return Members().unknown("conditional type not readable")
        checked, env = left, ref.env
        for _ in range(MAX_DEPTH):  # a parameter bound to a parameter bound to ... a type as written
            if checked is None or checked.type != "type_identifier":
                break
            is_parameter, value = bound(env, _text(checked))
            if not is_parameter:
                break
            checked, env = (value.node, value.env) if value is not None else (None, env)
        if checked is not None and right is not None and _text(checked).strip() == _text(right).strip():
            return await self.type_members(ref.child(yes), depth + 1)
        out = await self.type_members(ref.child(yes), depth + 1)
        out.absorb(await self.type_members(ref.child(no), depth + 1))
        return out

    async def _import_type(self, ref: TypeRef, depth: int) -> Members:
        node = ref.node
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        function = obj.child_by_field_name("function") if obj is not None and obj.type == "call_expression" else None
        arguments = obj.child_by_field_name("arguments") if function is not None else None
        spec = (
            next((_text(a)[1:-1] for a in arguments.named_children if a.type == "string"), None) if arguments else None
        )
        if function is None or function.type != "import" or spec is None or prop is None:
            return Members().unknown(f"type `{_text(node)[:40]}` is not modelled")
        module = await self._module_from(ref.scope, spec, depth)
        if module is None:
            return Members().unknown(f"module {spec!r} not resolvable")
        decls = await self.export_decls(module, _text(prop), depth + 1)
        return await self.type_of_decls(ref, decls, _text(prop), depth, [])

    async def _named_type(self, ref: TypeRef, dotted: str, depth: int, args: list[TypeRef]) -> Members:
        """Members of the type `dotted` names from `ref`, its type parameters bound to `args` or their defaults."""
        out = Members()
        scope = ref.scope
        key = (id(scope), dotted)
        if key in self._seen:
            return out  # a type that extends itself through a cycle adds nothing new
        self._seen.add(key)
        try:
            return await self.type_of_decls(ref, await self.value_decls(scope, dotted), dotted, depth, args)
        finally:
            self._seen.discard(key)

    async def type_of_decls(
        self, ref: TypeRef, found: list[Decl], dotted: str, depth: int, args: list[TypeRef]
    ) -> Members:
        """Members of a type given its declarations (interfaces, classes, aliases) or the language's own."""
        out = Members()
        scope = ref.scope
        decls = await self._follow(found, depth)
        types = [d for d in decls if d.kind in ("interface", "class", "type", "enum", "unreadable")]
        if not types and dotted in ("Function", "CallableFunction", "NewableFunction", "Object"):
            out.names |= OBJECT_MEMBERS | (FUNCTION_MEMBERS if dotted != "Object" else frozenset())
            return out  # the language's own, when nothing in the declarations shadows them
        if dotted in LIB_TYPES and all(d.kind == "interface" for d in types):
            out.names |= LIB_TYPES[dotted]  # the language's own (global augmentations add names)
            for decl in types:
                self._object_body(decl.node.child_by_field_name("body"), decl.scope, out, ref.env)
            if dotted in ("Array", "ReadonlyArray") and args:
                _array_methods(out, args[:1])
            if dotted in ("Promise", "PromiseLike"):
                _promise_methods(out)
                if args:
                    out.awaited.append(args[0])
                else:
                    out.await_partial = True
            return out
        if not types:
            if _is_type_parameter(scope, dotted):
                return out.unknown(f"generic type {dotted}")
            return out.unknown(f"type {dotted} not resolvable")
        out.names |= OBJECT_MEMBERS
        # `this` in the members stands for the type first named (Express, not the IRouter it extends);
        # any other reference to a type starts afresh (a handler's `res: Response` is a Response).
        if ref.heritage and bound(ref.env, "this")[0]:
            outer: Env = tuple(p for p in ref.env if p[0] == "this")
        else:
            outer = (("this", TypeRef(ref.node, ref.scope, ref.env, ref.at_least)),)
        for decl in types:
            env = bind_parameters(decl.node.child_by_field_name("type_parameters"), args, decl.scope, outer)
            if decl.kind == "interface":
                self._object_body(decl.node.child_by_field_name("body"), decl.scope, out, env)
                for heritage in decl.node.named_children:
                    if heritage.type == "extends_type_clause":
                        for base in heritage.named_children:
                            base_ref = TypeRef(base, decl.scope, env, heritage=True)
                            out.absorb(await self.type_members(base_ref, depth + 1))
            elif decl.kind == "class":
                out.absorb(await self._class_side(decl, static=False, depth=depth + 1, env=env))
            elif decl.kind == "type":
                value = decl.node.child_by_field_name("value")
                out.absorb(await self.type_members(TypeRef(value, decl.scope, env), depth + 1))
            elif decl.kind == "enum":
                out.unknown(f"enum type {dotted} is not modelled")
            else:
                out.unknown(f"{dotted}: {decl.spec or 'declaration'} not readable")
        return out

    def _object_body(self, body: Any, scope: Scope, out: Members, env: Env = ()) -> None:
        for member in body.named_children if body is not None else []:
            if member.type in ("property_signature", "method_signature", "public_field_definition"):
                name = member.child_by_field_name("name")
                if name is not None and name.type in ("property_identifier", "identifier", "string"):
                    _member_slot(out, _text(name).strip("'\""), member, scope, env)
            elif member.type == "call_signature":
                returned = member.child_by_field_name("return_type")
                out.calls.append(TypeRef(returned, scope, env))
            elif member.type == "construct_signature":
                out.constructs.append(TypeRef(member.child_by_field_name("type"), scope, env))
            elif member.type == "index_signature":
                if any(c.type == "mapped_type_clause" for c in member.named_children):
                    out.unknown("mapped type members are not modelled")
                else:
                    out.unknown("an index signature admits any name")

    async def _class_side(self, decl: Decl, *, static: bool, depth: int, env: Env = ()) -> Members:
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
                    _member_slot(out, text, member, decl.scope, env)
        heritage = next((c for c in decl.node.named_children if c.type == "class_heritage"), None)
        extends = next((c for c in heritage.named_children if c.type == "extends_clause"), None) if heritage else None
        if extends is not None:
            base = extends.child_by_field_name("value")
            args = extends.child_by_field_name("type_arguments")
            base_args = [TypeRef(a, decl.scope, env) for a in args.named_children] if args is not None else []
            if base is not None:
                base_decls = await self._follow(await self.value_decls(decl.scope, _text(base)), depth)
                classes = [d for d in base_decls if d.kind == "class"]
                this_env = tuple(p for p in env if p[0] == "this")
                if not base_decls and _text(base) in LIB_TYPES and not static:
                    out.absorb(
                        await self._named_type(TypeRef(base, decl.scope, env), _text(base), depth + 1, base_args)
                    )
                elif classes:
                    for base_class in classes:
                        params = base_class.node.child_by_field_name("type_parameters")
                        base_env = bind_parameters(params, base_args, base_class.scope, this_env)
                        out.absorb(await self._class_side(base_class, static=static, depth=depth + 1, env=base_env))
                elif static:
                    out.absorb(await self.value_members(base_decls, depth + 1))
                else:
                    value = await self.value_members(base_decls, depth + 1)
                    out.absorb(await self.construct_result(value, depth + 1))
        if not static:
            for merged in decl.scope.names.get(decl.name, []):
                if merged.kind == "interface":
                    name = decl.node.child_by_field_name("name")
                    merged_ref = TypeRef(name, decl.scope, env, heritage=True)
                    out.absorb(await self._named_type(merged_ref, decl.name, depth + 1, []))
                    break
            out.names |= OBJECT_MEMBERS
        return out


def _member_slot(out: Members, name: str, member: Any, scope: Scope, env: Env = ()) -> None:
    """A property's type or a method's return type, kept so `x.name` and `x.name()` can be followed."""
    if member.type in ("method_signature", "method_definition", "abstract_method_signature"):
        returned = member.child_by_field_name("return_type")
        out.slot(name, "method", TypeRef(returned, scope, env))
        return
    annotation = member.child_by_field_name("type")
    if annotation is not None:
        out.slot(name, "type", TypeRef(annotation, scope, env))
    else:
        out.names.add(name)


def _module_decl(decl: Decl, module: ModuleView) -> Decl:
    """An import of a whole module (`import * as m`, `import m = require()`) as a value declaration."""
    return Decl("module", decl.name, decl.node, decl.scope, spec=decl.spec, module=module)


def _is_type_parameter(scope: Scope, name: str) -> bool:
    return "." not in name and len(name) <= 2 and name[:1].isupper()


def _with_signature_env(ref: TypeRef) -> TypeRef:
    """A return (or construct) type with its signature's own type parameters bound (`get<T = any>(): R<T>`)."""
    signature = signature_of(ref.node)
    if signature is None:
        return ref
    params = signature.child_by_field_name("type_parameters")
    inferred = signature.child_by_field_name("parameters")
    env = bind_parameters(params, [], ref.scope, ref.env, inferred_in=inferred)
    return TypeRef(ref.node, ref.scope, env, ref.at_least)


def _class_env(decl: Decl) -> Env:
    """Type parameters for `new C(...)`: those the constructor takes stay unbound (inferred), others default."""
    body = decl.node.child_by_field_name("body")
    constructor = next(
        (m for m in (body.named_children if body is not None else [])
         if (n := m.child_by_field_name("name")) is not None and _text(n) == "constructor"),
        None,
    )  # fmt: skip
    inferred = constructor.child_by_field_name("parameters") if constructor is not None else None
    name = decl.node.child_by_field_name("name")
    this: Env = (("this", TypeRef(name, decl.scope)),) if name is not None else ()
    params = decl.node.child_by_field_name("type_parameters")
    return bind_parameters(params, [], decl.scope, this, inferred_in=inferred)


def _promise_methods(out: Members) -> None:
    for name in ("then", "catch", "finally"):
        out.slot(name, "promise", None)


def _parameter_type(signature: Any, index: int) -> Any:
    """The type written for the `index`-th argument of a signature (a rest parameter's element type)."""
    params = signature.child_by_field_name("parameters") if signature is not None else None
    position = 0
    for param in params.named_children if params is not None else []:
        pattern = param.child_by_field_name("pattern")
        if pattern is None or pattern.type == "this":
            continue
        annotation = param.child_by_field_name("type")
        written = annotation.named_children[-1] if annotation is not None and annotation.named_children else None
        if pattern.type == "rest_pattern":
            if written is not None and written.type == "array_type" and written.named_children:
                return written.named_children[0]
            if written is not None and written.type == "generic_type" and _text(written).startswith("Array<"):
                args = written.child_by_field_name("type_arguments")
                return args.named_children[0] if args is not None and args.named_children else None
            return None
        if position == index:
            return written
        position += 1
    return None


_ELEMENT_RESULTS = frozenset({"at", "find", "findLast", "pop", "shift"})
_SAME_ARRAY_RESULTS = frozenset({"filter", "slice", "sort", "toSorted", "reverse", "toReversed", "concat", "splice"})
_NUMBER_RESULTS = frozenset({"indexOf", "lastIndexOf", "findIndex", "findLastIndex", "push", "unshift"})
_BOOLEAN_RESULTS = frozenset({"includes", "some", "every"})
_ELEMENT_CALLBACKS = {  # method -> how many leading callback parameters are elements
    "map": 1, "flatMap": 1, "forEach": 1, "filter": 1, "find": 1, "findLast": 1, "findIndex": 1,
    "findLastIndex": 1, "some": 1, "every": 1, "sort": 2, "toSorted": 2,
}  # fmt: skip


def _array_methods(out: Members, elements: list[TypeRef]) -> None:
    """An array whose element types are known: `x[0]`, its callbacks' parameters and some results follow them."""
    if not elements:
        return
    out.elements.extend(elements)
    for name in sorted(
        _ELEMENT_RESULTS | _SAME_ARRAY_RESULTS | _NUMBER_RESULTS | _BOOLEAN_RESULTS | set(_ELEMENT_CALLBACKS)
    ):
        out.slot(name, "array", tuple(elements))
    out.slot("join", "array", tuple(elements))
