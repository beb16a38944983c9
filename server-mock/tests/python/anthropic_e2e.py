"""OpenAI's official Python client, through the gateway, to an Anthropic model (the faithful
mock in tests/common/anthropic/): text, a full tool round trip, images, a stream with tool
calls, cached usage priced exactly, an error event before content (fallback) and after it
(the stream ends with an error), and 529s that open the circuit so `auto` falls back.

Usage: python anthropic_e2e.py BASE_URL API_KEY   (BASE_URL like http://127.0.0.1:PORT/v1)
Exits 0 and prints "ok" when every check holds.
"""

import json
import sys
from decimal import Decimal

import openai

TOOLS = [{
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city now",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}, "required": ["city"]},
    },
}]
QUALITY_FIRST = {"route_strategy": {"quality_weight": 1, "cost_weight": 0}}


def platform(response):
    return response.model_dump()["platform"]


def main(base_url, api_key):
    client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0)

    # Text.
    hello = client.chat.completions.create(model="claude", messages=[
        {"role": "system", "content": "Be brief."}, {"role": "user", "content": "hello there"}])
    assert hello.choices[0].message.content == "Hello from Claude. You said: hello there", hello
    assert hello.choices[0].finish_reason == "stop"
    assert platform(hello)["routed_model"] == "claude"
    assert hello.usage.prompt_tokens == 25 and hello.usage.completion_tokens == 12, hello.usage

    # A full tool round trip: the call, then its result sent back.
    messages = [{"role": "user", "content": "What is the weather in Paris?"}]
    first = client.chat.completions.create(model="claude", messages=messages, tools=TOOLS)
    assert first.choices[0].finish_reason == "tool_calls", first
    call = first.choices[0].message.tool_calls[0]
    assert call.function.name == "get_weather" and json.loads(call.function.arguments) == {"city": "Paris", "unit": "celsius"}
    messages.append(first.choices[0].message.model_dump(exclude_none=True))
    messages.append({"role": "tool", "tool_call_id": call.id, "content": "18C, sunny"})
    second = client.chat.completions.create(model="claude", messages=messages, tools=TOOLS)
    assert second.choices[0].message.content == "It is 18°C in Paris.", second

    # Images: inline and by address.
    seen = client.chat.completions.create(model="claude", messages=[{"role": "user", "content": [
        {"type": "text", "text": "What are these?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}},
    ]}])
    assert seen.choices[0].message.content == "I see 2 images.", seen

    # A stream with a tool call: the arguments arrive in pieces under one index.
    stream = client.chat.completions.create(
        model="claude", messages=[{"role": "user", "content": "weather in Paris, streamed"}], tools=TOOLS,
        stream=True, stream_options={"include_usage": True})
    text, calls, finish, usage = [], {}, None, None
    for chunk in stream:
        if chunk.choices:
            delta = chunk.choices[0].delta
            text.append(delta.content or "")
            for piece in delta.tool_calls or []:
                entry = calls.setdefault(piece.index, {"id": None, "name": None, "arguments": ""})
                entry["id"] = piece.id or entry["id"]
                entry["name"] = (piece.function.name if piece.function else None) or entry["name"]
                entry["arguments"] += (piece.function.arguments if piece.function else "") or ""
            finish = chunk.choices[0].finish_reason or finish
        usage = chunk.usage or usage
    assert "".join(text) == "Let me check.", text
    assert finish == "tool_calls" and list(calls) == [0], (finish, calls)
    assert calls[0]["name"] == "get_weather" and json.loads(calls[0]["arguments"]) == {"city": "Paris", "unit": "celsius"}, calls
    assert usage.prompt_tokens == 30 and usage.completion_tokens == 20, usage

    # Thinking, streamed apart from the text.
    thought = client.chat.completions.create(model="claude", messages=[{"role": "user", "content": "think of a number"}], stream=True)
    reasoning, said = [], []
    for chunk in thought:
        if chunk.choices:
            delta = chunk.choices[0].delta
            reasoning.append((delta.model_extra or {}).get("reasoning_content") or "")
            said.append(delta.content or "")
    assert "".join(reasoning) == "The user wants a number." and "".join(said) == "42", (reasoning, said)

    # Cached usage, priced exactly: 100 fresh + 2,000 written + 30,000 read, 5 out.
    cached = client.chat.completions.create(model="claude", messages=[{"role": "user", "content": "cache me"}])
    assert cached.usage.prompt_tokens == 32100, cached.usage
    assert cached.usage.prompt_tokens_details.cached_tokens == 30000, cached.usage
    credits = Decimal(str(platform(cached)["credits_consumed"]))
    assert credits == Decimal("16.875"), credits

    # An error event before any content: the next model answers.
    before = client.chat.completions.create(
        model="auto", messages=[{"role": "user", "content": "fail-before content"}], stream=True, extra_body=QUALITY_FIRST)
    chunks = list(before)
    last = chunks[-1].model_dump()
    assert last["platform"]["routed_model"] == "local", last
    # After content: the client reads the text, then the stream's error.
    after = client.chat.completions.create(model="claude", messages=[{"role": "user", "content": "fail-after content"}], stream=True)
    got = []
    try:
        for chunk in after:
            if chunk.choices and chunk.choices[0].delta.content:
                got.append(chunk.choices[0].delta.content)
        raise AssertionError("the stream ended without its error")
    except openai.APIError as err:
        assert "api_error" in str(err), err
    assert "".join(got) == "Half an", got

    # 529s: each falls back; once the circuit opens, claude is skipped without being asked.
    for _ in range(2):
        over = client.chat.completions.create(model="auto", messages=[{"role": "user", "content": "you are overloaded"}], extra_body=QUALITY_FIRST)
        assert platform(over)["routed_model"] == "local", platform(over)
    skipped = client.chat.completions.create(model="auto", messages=[{"role": "user", "content": "hello"}], extra_body=QUALITY_FIRST)
    reason = platform(skipped)["route_reason"]
    assert platform(skipped)["routed_model"] == "local" and "claude skipped: open" in reason, reason
    print("ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
