"""Who replays a row's `play`: this process, or a worker in the jail when the protocol runs model code.

The engine and the newer-scorer path ask a player for one thing: replay the frozen `play` of a case
on a logged conversation and say what it sent and scored (`Played`). For protocols that declare
`executes_model_code` (a protocol that runs the model's tests), the replay happens in the jail worker
(`tooling/jail/`), which loads the same frozen modules from the same task-file text; this process
then only reads JSON back. A jail that fails mid-row gives that row an error row (a harness error,
never a model failure), and the next row starts a fresh jail.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from ..jail.client import Jail, check_layers
from ..jail.policy import JailFailed, JailPolicy
from ..specs import ProtocolSpec, installed_registry, load_hook
from ..taskfile.reader import FrozenProtocol, TaskFile
from .options import with_options
from .replay import LoggedMessage, PromptMismatch, ReplayConversation

_MISMATCH_FIELDS = {f.name: f.type for f in fields(PromptMismatch)}


@dataclass
class Played:
    """A replayed row: the row `play` returned, where the conversation first departed, messages left over."""

    row: dict[str, Any]
    mismatch: PromptMismatch | None
    leftover: int


class InProcessPlayer:
    """Replays in this process (protocols that never run model code)."""

    layers: dict[str, Any] | None = None

    def __init__(self, task: TaskFile, frozen: FrozenProtocol) -> None:
        self.task, self.frozen = task, frozen

    def play(self, case: dict[str, Any], messages: Sequence[LoggedMessage], options: dict[str, str] | None) -> Played:
        replay = ReplayConversation(messages, self.frozen.model_call_error)
        play = self.frozen.entry.play
        row: dict[str, Any] = self.frozen.rows.play_row(
            play if options is None else with_options(play, options),
            case,
            replay,
            protocol_id=self.task.protocol_id,
            payload_sha256=self.task.payload_sha256,
        )
        return Played(row, replay.mismatch, replay.leftover)

    def close(self) -> None:
        pass


def _mismatch(value: object) -> PromptMismatch | None:
    """A PromptMismatch from the worker's JSON; ValueError when it is not one."""
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != set(_MISMATCH_FIELDS):
        raise ValueError("a mismatch that is not one")
    for name in ("message_index", "call_index", "offset"):
        if type(value[name]) is not int:
            raise ValueError(f"mismatch field {name} is not an integer")
    for name in ("expected_role", "rendered_context", "logged_context", "reason", "rendered_text", "logged_text"):
        if not isinstance(value[name], str):
            raise ValueError(f"mismatch field {name} is not text")
    if value["logged_role"] is not None and not isinstance(value["logged_role"], str):
        raise ValueError("mismatch field logged_role is not text")
    return PromptMismatch(**value)


class JailedPlayer:
    """Replays in a jail worker, started on first use and again after a failure."""

    def __init__(
        self,
        task: TaskFile,
        frozen: FrozenProtocol,
        policy: JailPolicy,
        inputs: Callable[[], Mapping[str, bytes]] | None = None,
    ) -> None:
        self.task, self.frozen, self.policy = task, frozen, policy
        self._inputs = inputs
        self._jail: Jail | None = None
        self.layers: dict[str, Any] | None = None
        check_layers(policy)  # refuse now, before any row, when a layer is missing and not accepted

    def _started(self) -> Jail:
        if self._jail is None or not self._jail.alive:
            self.close()
            jail = Jail(self.policy, inputs=self._inputs() if self._inputs is not None else None)
            try:
                answer = jail.request(
                    {"op": "load", "key": "task", "task_text": self.task.text, "name": self.task.path.name}
                )
            except JailFailed:
                jail.close()
                raise
            if "error" in answer:
                jail.close()
                raise JailFailed(f"the jail could not load {self.task.protocol_id}: {answer['error']}")
            self._jail = jail
            self.layers = jail.layers
        return self._jail

    def _error(self, case: dict[str, Any], detail: str) -> Played:
        row: dict[str, Any] = self.frozen.rows.error_row(
            self.task.protocol_id, self.task.payload_sha256, str(case.get("id", "?")), "jail", detail[:1500]
        )
        return Played(row, None, 0)

    def play(self, case: dict[str, Any], messages: Sequence[LoggedMessage], options: dict[str, str] | None) -> Played:
        try:
            jail = self._started()
            answer = jail.request(
                {
                    "op": "play",
                    "key": "task",
                    "case": case,
                    "messages": [[message.role, message.text] for message in messages],
                    "options": options,
                }
            )
        except JailFailed as exc:
            self.close()
            return self._error(case, str(exc))
        if "error" in answer:
            return self._error(case, f"the jail worker failed: {answer['error']}")
        row, leftover = answer.get("row"), answer.get("leftover")
        try:
            mismatch = _mismatch(answer.get("mismatch"))
        except (ValueError, TypeError) as exc:
            return self._error(case, f"the jail worker sent a malformed answer: {exc}")
        if not isinstance(row, dict) or type(leftover) is not int:
            return self._error(case, "the jail worker sent a malformed answer: no row")
        return Played(row, mismatch, leftover)

    def close(self) -> None:
        if self._jail is not None:
            self._jail.close()
            self._jail = None


def player_for(
    task: TaskFile,
    frozen: FrozenProtocol,
    spec: ProtocolSpec | None,
    cases: list[dict[str, Any]],
    *,
    jail_accept: frozenset[str] = frozenset(),
) -> InProcessPlayer | JailedPlayer:
    """A jailed player when the version declares that `play` runs model code, else an in-process one.

    Raises JailRefused (before any row is read) when the jail would lack a layer the user did not accept.
    """
    if spec is None or not spec.executes_model_code:
        return InProcessPlayer(task, frozen)
    benchmark = installed_registry().benchmark_of(spec.protocol_id)
    hook = load_hook(benchmark.jail_inputs, "jail_inputs") if benchmark is not None and benchmark.jail_inputs else None

    policy = JailPolicy(nested_namespaces=spec.executor_namespaces, accept_missing=jail_accept)
    if hook is None:
        return JailedPlayer(task, frozen, policy)
    make: Callable[[list[dict[str, Any]]], Mapping[str, bytes]] = hook
    return JailedPlayer(task, frozen, policy, lambda: make(cases))
