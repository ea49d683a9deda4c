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


def test_calls_written_as_text_are_read_when_they_name_an_offered_tool() -> None:
    """The embedded Qwen2.5-Coder-1.5B, asked with native tool calling, answered a banking
    task with a fenced JSON call that the endpoint left as text."""
    from trainer.toolcalls import calls_in_text

    fenced = '```json\n{"name": "transfer_funds", "arguments": {"amount": 1450}}\n```'
    (call,) = calls_in_text(fenced, {"transfer_funds", "get_account"}, turn=2)
    assert call.function.name == "transfer_funds" and call.id == "call_2_0"
    assert json.loads(call.function.arguments) == {"amount": 1450}
    tagged = 'ok <tool_call>{"name": "get_account", "arguments": {"account_id": "A1"}}</tool_call>'
    assert [c.function.name for c in calls_in_text(tagged, {"get_account"})] == ["get_account"]
    assert calls_in_text(fenced, {"get_account"}) == []  # not offered: words, not a call
    assert calls_in_text("Your balance is 120.", {"get_account"}) == []
