"""Removals no published file of an older release shows: a label for the gates' own "missing".

The general rule lives in the gates (`pysymbols.present_in_older`): a name absent now but
present in an older release's artifact is `removed-api`, for every package. This table is the
fallback for what those artifacts cannot show.

The symbol gates decide existence themselves, and find most removals by reading an older
release (pandas `DataFrame.append` in 1.5, Flask `Markup` in 2.3). A few removed names appear in
no older artifact the gates read: Express 4's `app.del` was set at run time and never typed in
@types/express. For those, this table names the release that removed the name, so a
`missing-symbol` the gate decided becomes `removed-api` when the version in use is at or past
it. The table never decides existence: an unverified name stays unverified. Each entry cites
the project's own migration notes. Embedded: stdlib only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class RemovedApi:
    ecosystem: str
    package: str
    chain: tuple[str, ...]
    removed_in: str
    replacement: str
    source: str
    last_in: str = ""  # the last release that had the name, when the notes say so


REMOVED_APIS: tuple[RemovedApi, ...] = (
    RemovedApi(
        "npm",
        "express",
        ("()", "del"),
        "5.0.0",
        "app.delete",
        "expressjs.com/en/guide/migrating-5.html (app.del removed)",
    ),
    # numpy 1.20 deprecated the builtin-type aliases through a module `__getattr__` (present at run
    # time, not bound in any file) and 1.24 removed them: no artifact shows 1.23 had them.
    *(
        RemovedApi(
            "pypi",
            "numpy",
            (alias,),
            "1.24",
            replacement,
            "numpy.org/doc/stable/release/1.24.0-notes.html (expired deprecations: np.float etc.)",
            "1.23.5",
        )
        for alias, replacement in (
            ("float", "float or numpy.float64"),
            ("int", "int or numpy.int_"),
            ("bool", "bool or numpy.bool_"),
            ("object", "object or numpy.object_"),
            ("complex", "complex or numpy.complex128"),
            ("str", "str or numpy.str_"),
            ("long", "int"),
            ("unicode", "str or numpy.str_"),
        )
    ),
)


def version_tuple(version: str) -> tuple[int, ...]:
    """Leading numeric release segments: `5.1.0` -> (5, 1, 0); `2.0rc1` -> (2, 0)."""
    match = re.match(r"^v?(\d+(?:\.\d+)*)", version.strip())
    return tuple(int(p) for p in match.group(1).split(".")) if match else ()


def lookup(ecosystem: str, package: str, chain: tuple[str, ...]) -> RemovedApi | None:
    """The table entry for (ecosystem, package, chain), package compared case-insensitively."""
    for entry in REMOVED_APIS:
        if entry.ecosystem == ecosystem and entry.package == package.lower() and entry.chain == chain:
            return entry
    return None


def removed_at(entry: RemovedApi, version: str | None) -> bool | None:
    """True when `version` is at or past the removal, False before it, None when unknown."""
    if not version:
        return None
    have, cut = version_tuple(version), version_tuple(entry.removed_in)
    if not have:
        return None
    return have >= cut
