"""The scripted conversation the protocol tests share: strict about running out, faithful about what was sent."""

from __future__ import annotations

import pytest

from hallubench.rows import play_row
from hallubench.tooling.testing import ScriptedConversation, ScriptExhausted


def test_replies_come_back_in_order_and_every_message_is_recorded() -> None:
    conv = ScriptedConversation.of("one", "two")
    conv.system("be brief")
    assert [conv.ask("a"), conv.ask("b")] == ["one", "two"]
    assert conv.sent == [("system", "be brief"), ("user", "a"), ("user", "b")]
    assert conv.asked == ["a", "b"] and conv.messages == ["be brief", "a", "b"]


def test_running_out_of_replies_raises_instead_of_answering_nothing() -> None:
    conv = ScriptedConversation.of("only")
    conv.ask("a")
    with pytest.raises(ScriptExhausted, match="question 2 has no scripted reply"):
        conv.ask("b")


def test_a_scripted_exception_is_a_failed_model_call() -> None:
    conv = ScriptedConversation.always(ConnectionError("proxy down"))
    with pytest.raises(ConnectionError):
        conv.ask("a")
    row = play_row(
        lambda case, c: {"verdict": "pass", "r": c.ask("x")}, {"id": "c"}, conv, protocol_id="p", payload_sha256="s"
    )
    assert row["verdict"] == "error" and row["error_kind"] == "model_call"


def test_always_repeats_its_reply() -> None:
    conv = ScriptedConversation.always("same")
    assert [conv.ask(str(i)) for i in range(3)] == ["same"] * 3
