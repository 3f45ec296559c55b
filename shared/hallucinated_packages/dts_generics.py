"""Type references with their type parameters bound, and the members of the language's own types.

A declaration file says `get<T = any, R = AxiosResponseDefault>(url): Promise<AxiosResponseResult<T, R>>`
and `interface AxiosResponse<T = any> { data: T }`: what a call returns depends on which type each
parameter stands for. A `TypeRef` carries that as an environment (`env`): the type parameters in
scope where the type was written, each bound to the type it stands for, or to None when nothing
says (it would be inferred from arguments the gate does not type). Binding follows TypeScript
where no argument types are needed: an argument written in the reference (`Foo<Bar>`), else the
parameter's default; a parameter that only appears in the return type takes its default (nothing
could infer it); one with only a constraint stands for "at least the constraint"; `this` is the
type whose members are being read. The language's own types (Promise, Array, string, ...) are
in no package, so their members are listed here (ES2024). Embedded: standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .dts_scopes import Scope

Env = tuple[tuple[str, "TypeRef | None"], ...]


@dataclass(frozen=True)
class TypeRef:
    """A type as written (`node`), where (`scope`), with the type parameters bound there (`env`)."""

    node: Any
    scope: Scope
    env: Env = ()
    at_least: bool = False  # a constraint standing in for an unbound parameter: its members, maybe more
    heritage: bool = False  # a base of the type being read: `this` stays the type first named

    def child(self, node: Any) -> TypeRef:
        return TypeRef(node, self.scope, self.env)


def bound(env: Env, name: str) -> tuple[bool, TypeRef | None]:
    """(is `name` a type parameter here, what it stands for); the innermost binding wins."""
    for key, value in reversed(env):
        if key == name:
            return True, value
    return False, None


def bind_parameters(params: Any, args: Sequence[TypeRef], scope: Scope, env: Env, *, inferred_in: Any = None) -> Env:
    """`env` extended with the type parameters of `params` (a `type_parameters` node).

    `args` are the type arguments written at the reference. `inferred_in` is a signature's
    parameter list: a type parameter named there would be inferred from the call's arguments,
    which the gate does not type, so it stays unbound instead of taking its default.
    """
    if params is None:
        return env
    out = list(env)
    for position, param in enumerate(p for p in params.named_children if p.type == "type_parameter"):
        name_node = param.child_by_field_name("name")
        if name_node is None:
            continue
        name = _text(name_node)
        so_far: Env = tuple(out)
        if position < len(args):
            out.append((name, args[position]))
            continue
        if inferred_in is not None and _mentions(inferred_in, name):
            out.append((name, None))
            continue
        default = param.child_by_field_name("value")
        constraint = param.child_by_field_name("constraint")
        if default is not None and default.named_children:
            out.append((name, TypeRef(default.named_children[-1], scope, so_far)))
        elif constraint is not None and constraint.named_children:
            out.append((name, TypeRef(constraint.named_children[-1], scope, so_far, at_least=True)))
        else:
            out.append((name, None))
    return tuple(out)


def type_arguments(ref: TypeRef) -> list[TypeRef]:
    """The type arguments written on a `generic_type` node (`Foo<A, B>` -> [A, B])."""
    args = ref.node.child_by_field_name("type_arguments") if ref.node is not None else None
    return [ref.child(a) for a in args.named_children] if args is not None else []


def signature_of(return_type: Any) -> Any:
    """The signature node a return type (or construct type) belongs to, for its type parameters."""
    parent = return_type.parent if return_type is not None else None
    if parent is not None and parent.type == "type_annotation":
        parent = parent.parent
    return parent


def _mentions(node: Any, name: str) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "type_identifier" and _text(current) == name:
            return True
        stack.extend(current.children)
    return False


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", errors="replace"))


# ---------------------------------------------------------------------- the language's own types
OBJECT_MEMBERS = frozenset(
    {"constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable", "toLocaleString", "toString",
     "valueOf", "__proto__", "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__"}
)  # fmt: skip
FUNCTION_MEMBERS = frozenset({"apply", "bind", "call", "length", "name", "arguments", "caller", "prototype"})
PROMISE_MEMBERS = frozenset({"then", "catch", "finally"}) | OBJECT_MEMBERS
ARRAY_MEMBERS = frozenset(
    {"length", "at", "concat", "copyWithin", "entries", "every", "fill", "filter", "find", "findIndex", "findLast",
     "findLastIndex", "flat", "flatMap", "forEach", "includes", "indexOf", "join", "keys", "lastIndexOf", "map",
     "pop", "push", "reduce", "reduceRight", "reverse", "shift", "slice", "some", "sort", "splice", "toReversed",
     "toSorted", "toSpliced", "unshift", "values", "with"}
) | OBJECT_MEMBERS  # fmt: skip
STRING_MEMBERS = frozenset(
    {"length", "at", "charAt", "charCodeAt", "codePointAt", "concat", "endsWith", "includes", "indexOf",
     "isWellFormed", "lastIndexOf", "localeCompare", "match", "matchAll", "normalize", "padEnd", "padStart",
     "repeat", "replace", "replaceAll", "search", "slice", "split", "startsWith", "substring", "substr",
     "toLocaleLowerCase", "toLocaleUpperCase", "toLowerCase", "toUpperCase", "toWellFormed", "trim", "trimEnd",
     "trimStart", "trimLeft", "trimRight", "anchor", "big", "blink", "bold", "fixed", "fontcolor", "fontsize",
     "italics", "link", "small", "strike", "sub", "sup"}
) | OBJECT_MEMBERS  # fmt: skip
NUMBER_MEMBERS = frozenset({"toExponential", "toFixed", "toPrecision"}) | OBJECT_MEMBERS
BOOLEAN_MEMBERS = OBJECT_MEMBERS

LIB_TYPES: dict[str, frozenset[str]] = {
    "Promise": PROMISE_MEMBERS,
    "PromiseLike": frozenset({"then"}) | OBJECT_MEMBERS,
    "Array": ARRAY_MEMBERS,
    "ReadonlyArray": ARRAY_MEMBERS - {"copyWithin", "fill", "pop", "push", "reverse", "shift", "sort", "splice",
                                      "unshift"},
    "String": STRING_MEMBERS,
    "Number": NUMBER_MEMBERS,
    "Boolean": BOOLEAN_MEMBERS,
}  # fmt: skip
PREDEFINED: dict[str, frozenset[str]] = {
    "string": STRING_MEMBERS,
    "number": NUMBER_MEMBERS,
    "boolean": BOOLEAN_MEMBERS,
    "bigint": frozenset({"toLocaleString", "toString", "valueOf"}),
    "object": OBJECT_MEMBERS,
}
