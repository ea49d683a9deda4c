"""Reading a text policy's tool calls: what is harmless is read, what is broken is named."""

from __future__ import annotations

import json

from trainer.toolcalls import ParsedReply, parse_reply


def args(reply: ParsedReply, i: int = 0) -> dict:
    return json.loads(reply.calls[i].function.arguments)


def test_calls_and_words_are_split() -> None:
    text = (
        "Let me look.\n<tool_call>\n"
        '{"name": "get_account", "arguments": {"account_id": "A1"}}\n</tool_call>\n'
        '<tool_call>{"name": "list_cards", "arguments": {}}</tool_call>'
    )
    reply = parse_reply(text, turn=3)
    assert reply.valid and reply.content == "Let me look."
    assert [c.function.name for c in reply.calls] == ["get_account", "list_cards"]
    assert [c.id for c in reply.calls] == ["call_3_0", "call_3_1"]
    assert args(reply) == {"account_id": "A1"}


def test_harmless_variations_are_read() -> None:
    fenced = '<tool_call>```json\n{"name": "f", "parameters": {"x": 1}}\n```</tool_call>'
    assert args(parse_reply(fenced)) == {"x": 1}
    as_string = '<tool_call>{"name": "f", "arguments": "{\\"x\\": 2}"}</tool_call>'
    assert args(parse_reply(as_string)) == {"x": 2}
    unclosed = 'ok <tool_call>{"name": "f", "arguments": {"x": 3}}'
    reply = parse_reply(unclosed)
    assert reply.valid and args(reply) == {"x": 3} and reply.content == "ok"
    thinking = '<think>maybe <tool_call>{"name": "g"}</tool_call></think>The balance is 5.'
    reply = parse_reply(thinking)
    assert reply.valid and reply.calls == [] and reply.content == "The balance is 5."


def test_broken_calls_are_named_and_not_made() -> None:
    cases = {
        "<tool_call>{name: f}</tool_call>": "not JSON",
        '<tool_call>["f"]</tool_call>': "a list, not an object",
        '<tool_call>{"arguments": {}}</tool_call>': "no tool name",
        '<tool_call>{"name": "f", "arguments": [1]}</tool_call>': "arguments must be an object",
        '<tool_call>{"name": "f", "arguments": "{x"}</tool_call>': "a string that is not JSON",
        "done</tool_call>": "with no <tool_call>",
    }
    for text, problem in cases.items():
        reply = parse_reply(text)
        assert not reply.valid and problem in reply.errors[0], text
        assert reply.calls == []


def test_a_plain_answer_is_a_final_message() -> None:
    reply = parse_reply("Your balance is 120.50.")
    message = reply.message()
    assert (
        reply.valid and message.tool_calls is None and message.content == "Your balance is 120.50."
    )
