"""Rebuilding, from a run file, the exact message list of every model call.

kbench groups a chat's history into requests: each request holds the messages added since the
previous assistant reply, and the reply closes it. So the messages sent for the call that
produced request k's reply are the contents of requests 1..k without that final reply
(kaggle-benchmarks reference §2.5). For plain `llm.prompt(str)` / `kbench.system.send(str)` /
`kbench.user.send(str)` tasks this list matches what went over the wire, role for role and
character for character (checked against a wire log, reference §2.10). It does NOT include
what kbench adds without recording it: the schema instruction of `schema=`, `response_format`,
`respond(system=...)` system prompts and call parameters.

A message appended with the assistant role by the task itself (not by a model call) also closes
a request; the file cannot tell the two apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import Conversation, Message, RequestMetrics


@dataclass(frozen=True)
class ModelCall:
    """One answered model call: what was sent, what came back, and the request's usage metrics."""

    conversation_id: str
    request_id: str
    request_index: int  # 0-based position of the closing request in the conversation
    messages: list[Message]  # the full prompt: requests 1..k minus the final reply
    new_messages: list[Message]  # only those added in request k
    reply: Message
    metrics: RequestMetrics | None
    reasoning_traces: str | None


@dataclass(frozen=True)
class UnansweredMessages:
    """Messages recorded after the last reply, with no reply of their own.

    In an ERRORED run this is usually the prompt whose call failed (for example a structured
    reply that did not parse); `messages` is then the full prompt that was being sent.
    """

    conversation_id: str
    request_id: str
    messages: list[Message]  # everything in the conversation, including new_messages
    new_messages: list[Message]


def calls(conversation: Conversation) -> list[ModelCall]:
    """Every answered call of one conversation, in order."""
    result: list[ModelCall] = []
    history: list[Message] = []
    for index, request in enumerate(conversation.requests):
        if not request.answered:
            history.extend(request.contents)
            continue
        new_messages = request.contents[:-1]
        history.extend(new_messages)
        reply = request.contents[-1]
        result.append(
            ModelCall(
                conversation_id=conversation.id,
                request_id=request.id,
                request_index=index,
                messages=list(history),
                new_messages=list(new_messages),
                reply=reply,
                metrics=request.metrics,
                reasoning_traces=request.reasoning_traces,
            )
        )
        history.append(reply)
    return result


def unanswered(conversation: Conversation) -> UnansweredMessages | None:
    """The trailing request without a reply, or None when the conversation ends on a reply."""
    if not conversation.requests or conversation.requests[-1].answered:
        return None
    trailing = conversation.requests[-1]
    history = [message for request in conversation.requests for message in request.contents]
    return UnansweredMessages(
        conversation_id=conversation.id,
        request_id=trailing.id,
        messages=history,
        new_messages=list(trailing.contents),
    )
