"""The Reference: one package or module that a model answer points at, as written.

Extraction (imports, install lines, manifests, prose) produces References; the checker turns
each into verdicts. A Reference keeps the exact text the model wrote, so every verdict can be
traced back to the answer, and everything a later rescore needs (line, pin, optionality) so
the scorer never has to re-read the answer to explain itself. Embedded: standard library only.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

ECOSYSTEMS = ("pypi", "npm")
SOURCES = (
    "import",
    "dynamic-import",
    "require",
    "export-from",
    "install",
    "requirement",
    "package-json",
    "prose",
)
CLASSIFICATIONS = ("stdlib", "builtin", "local", "third-party")
RECEIVERS = ("typed", "unknown")
CALL, ELEMENT, ENTER, AWAIT, INSTANCE = "()", "[]", "enter", "await", ":"


@dataclass(frozen=True)
class Use:
    """One use of a package's API on a value the answer got from the package, with where it was written.

    `path` leads from the module (or npm specifier) to the used name, one step at a time: an
    attribute name, `()` a call, `[]` an element of an iterable, `[0]`, `[1]` ... an item of a
    tuple, `enter` what `with ... as` binds, `await` what awaiting gives, `:` an instance of the
    type named so far (an annotation). `("read_csv", "()", "append")` is `pd.read_csv(...).append`;
    `("DataFrame", ":", "append")` is `df.append` on a parameter `df: pd.DataFrame`.

    `receiver` says how far the answer's code tells the receiver's type: `typed` the path is
    complete and the gate follows it in the package's own files; `unknown` the value came from
    the package but the code loses its type (an item of a subscript, an arithmetic result), so
    `path` ends `..., "?", name` and the use is recorded as undecided ("receiver type unknown"),
    never dropped. Language-neutral: Python and JavaScript extraction both write these.
    """

    path: tuple[str, ...]
    line: int | None = None
    receiver: str = "typed"
    note: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if self.receiver not in RECEIVERS:
            raise ValueError(f"unknown receiver kind {self.receiver!r}")
        if not self.path:
            raise ValueError("a use needs a path")

    @property
    def name(self) -> str:
        """The used name, as written."""
        return self.path[-1]

    def label(self, module: str) -> str:
        """`pandas.read_csv().append`: the path written as code, for reports and scoring keys."""
        out = module
        for step in self.path:
            if step == CALL:
                out += "()"
            elif step.startswith("["):
                out += step
            elif step in (ENTER, AWAIT, INSTANCE, "?"):
                out += {ENTER: "<with>", AWAIT: "<await>", INSTANCE: "<instance>", "?": "<?>"}[step]
            else:
                out += f".{step}"
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"path": list(self.path), "line": self.line, "receiver": self.receiver, "note": self.note}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Use:
        return cls(tuple(data["path"]), data.get("line"), data.get("receiver", "typed"), data.get("note", ""))


@dataclass(frozen=True)
class UntypedUse:
    """A method or attribute use on a value whose origin the answer does not show (an unannotated parameter).

    Not attributed to any package: it counts among the answer's uses, undecided, and where a case
    declares the removed API it targets, a use of that name is reported as a possible
    removed-API use instead of passing by silence.
    """

    ecosystem: str
    name: str
    receiver: str  # the receiver as written (`df`)
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Reference:
    """One pointer from an answer to a package, module or npm specifier.

    `symbols` are attribute chains (one or two links) used on the module itself or imported
    from it: `(("DataFrame", "append"),)`. `instance_symbols` are chains inferred through a
    variable built from a class of the module (`df = pd.DataFrame(); df.append(...)`): they may
    hit attributes set in `__init__` or inherited, so the checker never calls them missing,
    only found, removed-api or unverified. `uses` are the answer's uses of what the module's
    functions and classes give back (`Use`), followed through calls, annotations and variables.
    """

    ecosystem: str
    source: str
    text: str
    package: str
    module: str | None = None
    subpath: str | None = None
    symbols: tuple[tuple[str, ...], ...] = ()
    instance_symbols: tuple[tuple[str, ...], ...] = ()
    uses: tuple[Use, ...] = ()
    optional: bool = False
    line: int | None = None
    classification: str = "third-party"
    version: str | None = None
    partially_parsed: bool = False
    note: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if self.ecosystem not in ECOSYSTEMS:
            raise ValueError(f"unknown ecosystem {self.ecosystem!r}")
        if self.source not in SOURCES:
            raise ValueError(f"unknown reference source {self.source!r}")
        if self.classification not in CLASSIFICATIONS:
            raise ValueError(f"unknown classification {self.classification!r}")

    @property
    def is_third_party(self) -> bool:
        return self.classification == "third-party"

    def with_changes(self, **changes: Any) -> Reference:
        """A copy with some fields replaced (References are frozen)."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form logged in every row result."""
        data = asdict(self)
        data["symbols"] = [list(chain) for chain in self.symbols]
        data["instance_symbols"] = [list(chain) for chain in self.instance_symbols]
        data["uses"] = [use.to_dict() for use in self.uses]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Reference:
        values = dict(data)
        for key in ("symbols", "instance_symbols"):
            values[key] = tuple(tuple(chain) for chain in values.get(key, ()))
        values["uses"] = tuple(Use.from_dict(u) for u in values.get("uses", ()))
        return cls(**values)


def merge_symbols(*groups: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, ...], ...]:
    """Union of attribute chains, first occurrence order kept (renders stay deterministic)."""
    seen: dict[tuple[str, ...], None] = {}
    for group in groups:
        for chain in group:
            if chain:
                seen.setdefault(chain, None)
    return tuple(seen)


def merge_uses(*groups: tuple[Use, ...]) -> tuple[Use, ...]:
    """Union of uses, first occurrence kept (the same path, line and receiver once)."""
    seen: dict[tuple[tuple[str, ...], int | None, str], Use] = {}
    for group in groups:
        for use in group:
            seen.setdefault((use.path, use.line, use.receiver), use)
    return tuple(seen.values())
