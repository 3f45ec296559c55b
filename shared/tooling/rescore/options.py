"""The run options a row is replayed under: what its version declares, as the hosted row recorded them.

A version's run options (`ProtocolSpec.run_options`) reach `play` as its third argument and are
written into every row. Rescoring replays a row under the values it recorded (so a run made
against a local registry is rescored against it), except where `rescore --option NAME=VALUE`
says otherwise; names the version does not declare are ignored in a row and refused on the
command line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...errors import HallubenchError
from ..specs import RunOption

PlayFunction = Callable[..., dict[str, Any]]


class OptionError(HallubenchError, ValueError):
    """An `--option` that is malformed or that the version does not declare."""


def parse_options(given: list[str]) -> dict[str, str]:
    """`NAME=VALUE` settings of `--option` (`run` and `rescore`)."""
    options: dict[str, str] = {}
    for item in given:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise OptionError(f"--option takes NAME=VALUE, got {item!r}")
        options[name.strip()] = value
    return options


def check_overrides(declared: tuple[RunOption, ...], overrides: Mapping[str, str], protocol_id: str) -> None:
    unknown = sorted(set(overrides) - {option.name for option in declared})
    if unknown:
        names = ", ".join(option.name for option in declared) or "none"
        raise OptionError(f"{protocol_id} has no run option {', '.join(unknown)} (it declares: {names})")


def replay_options(
    declared: tuple[RunOption, ...], hosted_row: Mapping[str, Any] | None, overrides: Mapping[str, str]
) -> dict[str, str]:
    """Defaults, then what the hosted row recorded, then the command line's overrides: every declared name once."""
    recorded = hosted_row.get("run_options") if hosted_row is not None else None
    options = {option.name: option.default for option in declared}
    if isinstance(recorded, dict):
        options.update({name: str(value) for name, value in recorded.items() if name in options})
    options.update({name: value for name, value in overrides.items() if name in options})
    return options


def with_options(play: PlayFunction, options: Mapping[str, str]) -> PlayFunction:
    """`play(case, conv)` for the row wrapper, calling the entry's `play(case, conv, options)`."""

    def bound(case: dict[str, Any], conv: Any) -> dict[str, Any]:
        return play(case, conv, dict(options))

    return bound
