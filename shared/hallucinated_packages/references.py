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


@dataclass(frozen=True)
class Reference:
    """One pointer from an answer to a package, module or npm specifier.

    `symbols` are attribute chains (one or two links) used on the module itself or imported
    from it: `(("DataFrame", "append"),)`. `instance_symbols` are chains inferred through a
    variable built from a class of the module (`df = pd.DataFrame(); df.append(...)`): they may
    hit attributes set in `__init__` or inherited, so the checker never calls them missing,
    only found, removed-api or unverified.
    """

    ecosystem: str
    source: str
    text: str
    package: str
    module: str | None = None
    subpath: str | None = None
    symbols: tuple[tuple[str, ...], ...] = ()
    instance_symbols: tuple[tuple[str, ...], ...] = ()
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
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Reference:
        values = dict(data)
        for key in ("symbols", "instance_symbols"):
            values[key] = tuple(tuple(chain) for chain in values.get(key, ()))
        return cls(**values)


def merge_symbols(*groups: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, ...], ...]:
    """Union of attribute chains, first occurrence order kept (renders stay deterministic)."""
    seen: dict[tuple[str, ...], None] = {}
    for group in groups:
        for chain in group:
            if chain:
                seen.setdefault(chain, None)
    return tuple(seen)
