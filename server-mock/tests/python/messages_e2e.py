"""Anthropic's official Python SDK against the gateway's /v1/messages (issue 38): Claude behind
it (the faithful mock in tests/common/anthropic/, passed through) and a simulated model
(translated): messages.create, messages.stream with text and with a tool call, a tool round
trip, count_tokens, and the gateway's and the upstream's errors raised as the SDK's typed
exceptions.

Usage: python messages_e2e.py BASE_URL API_KEY LIMITED_TOKEN
  BASE_URL like http://127.0.0.1:PORT (the SDK adds /v1/messages); LIMITED_TOKEN a token with
  chat:write whose credit limit is below any answer's worst case.
Exits 0 and prints "ok" when every check holds.
"""

import sys

import anthropic

TOOLS = [{
    "name": "get_weather",
    "description": "The weather in a city now",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}, "required": ["city"]},
}]


def raises(kind, call):
    try:
        call()
    except kind as err:
        return err
    raise AssertionError(f"expected {kind.__name__}")


def main(base_url, api_key, limited):
    client = anthropic.Anthropic(base_url=base_url, api_key=api_key, max_retries=0)

    # Claude, whole: the upstream's message as it wrote it.
    hello = client.messages.create(model="claude", max_tokens=200, system="Be brief.",
                                   messages=[{"role": "user", "content": "hello there"}])
    assert hello.content[0].text == "Hello from Claude. You said: hello there", hello
    assert hello.stop_reason == "end_turn" and hello.usage.output_tokens == 12, hello
    raw = client.messages.with_raw_response.create(model="claude-sonnet", max_tokens=200,
                                                    messages=[{"role": "user", "content": "hello there"}])
    assert raw.headers["x-tokctl-routed-model"] == "claude", raw.headers
    assert float(raw.headers["x-tokctl-credits-consumed"]) > 0, raw.headers
    assert raw.headers["x-tokctl-request-id"].startswith("req_"), raw.headers

    # A simulated model, whole and streamed: the same text both ways.
    local = client.messages.create(model="local", max_tokens=200,
                                   messages=[{"role": "user", "content": "tell me about tokens"}])
    assert local.content[0].type == "text" and "You said: tell me about tokens" in local.content[0].text, local
    with client.messages.stream(model="local", max_tokens=200,
                                messages=[{"role": "user", "content": "tell me about tokens"}]) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text == local.content[0].text, (text, local)
    assert final.stop_reason == "end_turn" and final.usage.output_tokens == local.usage.output_tokens, final

    # Claude streamed: text, then a tool call, then its result sent back.
    with client.messages.stream(model="claude", max_tokens=200,
                                messages=[{"role": "user", "content": "hello there"}]) as stream:
        text = "".join(stream.text_stream)
    assert text == "Hello from Claude. You said: hello there", text
    messages = [{"role": "user", "content": "What is the weather in Paris?"}]
    with client.messages.stream(model="claude", max_tokens=200, tools=TOOLS, messages=messages) as stream:
        called = stream.get_final_message()
    assert called.stop_reason == "tool_use", called
    use = next(block for block in called.content if block.type == "tool_use")
    assert use.name == "get_weather" and use.input == {"city": "Paris", "unit": "celsius"}, use
    messages.append({"role": "assistant", "content": called.content})
    messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "18C, sunny"}]})
    answered = client.messages.create(model="claude", max_tokens=200, tools=TOOLS, messages=messages)
    assert answered.content[0].text == "It is 18°C in Paris.", answered

    # Counting: Claude's upstream asked, a simulated model's estimated.
    counted = client.messages.count_tokens(model="claude", messages=[{"role": "user", "content": "count me"}])
    assert counted.input_tokens > 0, counted
    short = client.messages.count_tokens(model="local", messages=[{"role": "user", "content": "count me"}])
    long = client.messages.count_tokens(model="local", messages=[{"role": "user", "content": "count me " * 200}])
    assert 0 < short.input_tokens < long.input_tokens, (short, long)

    # Errors, as the SDK's own exceptions.
    stranger = anthropic.Anthropic(base_url=base_url, api_key="tkt_wrong", max_retries=0)
    err = raises(anthropic.AuthenticationError, lambda: stranger.messages.create(
        model="local", max_tokens=10, messages=[{"role": "user", "content": "hi"}]))
    assert err.body["error"]["type"] == "authentication_error", err.body
    err = raises(anthropic.NotFoundError, lambda: client.messages.create(
        model="gpt-9", max_tokens=10, messages=[{"role": "user", "content": "hi"}]))
    assert err.body["error"]["type"] == "not_found_error", err.body
    err = raises(anthropic.BadRequestError, lambda: client.messages.create(
        model="local", max_tokens=10, messages=[{"role": "moderator", "content": "hi"}]))
    assert err.body["error"]["type"] == "invalid_request_error", err.body
    err = raises(anthropic.PaymentRequiredError, lambda: client.messages.create(
        model="claude", max_tokens=1000, messages=[{"role": "user", "content": "hi"}],
        extra_headers={"x-tokctl-budget-limit": "0.000000001"}))
    assert err.body["error"]["type"] == "billing_error", err.body
    poor = anthropic.Anthropic(base_url=base_url, auth_token=limited, max_retries=0)
    err = raises(anthropic.PaymentRequiredError, lambda: poor.messages.create(
        model="local", max_tokens=1000, messages=[{"role": "user", "content": "hi"}]))
    assert "limit" in err.message, err.message
    err = raises(anthropic.OverloadedError, lambda: client.messages.create(
        model="claude", max_tokens=10, messages=[{"role": "user", "content": "overloaded"}]))
    assert err.body["error"]["type"] == "overloaded_error", err.body
    err = raises(anthropic.RateLimitError, lambda: client.messages.create(
        model="claude", max_tokens=10, messages=[{"role": "user", "content": "rate-limited"}]))
    assert err.response.headers["retry-after"] == "1", err.response.headers
    print("ok")


if __name__ == "__main__":
    main(*sys.argv[1:4])
