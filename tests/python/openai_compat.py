"""OpenAI's official Python client against the tokctl gateway, unchanged.

Usage: python openai_compat.py BASE_URL API_KEY   (BASE_URL like http://127.0.0.1:PORT/v1)
Exits 0 and prints "ok" when every check holds.
"""

import sys

import openai


def main(base_url: str, api_key: str) -> None:
    client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0)
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hello from python"},
    ]

    # Non-streaming: typed response, usage, and our extra `platform` object kept as an extra.
    completion = client.chat.completions.create(model="sim-fast", messages=messages, max_tokens=12, temperature=0.5)
    text = completion.choices[0].message.content
    assert text.startswith("[sim-fast]"), text
    assert completion.choices[0].finish_reason in ("stop", "length")
    assert completion.usage.total_tokens == completion.usage.prompt_tokens + completion.usage.completion_tokens
    platform = completion.model_dump()["platform"]
    assert platform["routed_model"] == "sim-fast", platform
    assert platform["credits_consumed"] > 0

    # Streaming: the same text in order, a finish reason, then a usage chunk.
    stream = client.chat.completions.create(
        model="sim-fast", messages=messages, max_tokens=12, temperature=0.5,
        stream=True, stream_options={"include_usage": True},
    )
    pieces, finish, usage = [], None, None
    for chunk in stream:
        if chunk.choices:
            if chunk.choices[0].delta.content:
                pieces.append(chunk.choices[0].delta.content)
            finish = chunk.choices[0].finish_reason or finish
        if chunk.usage:
            usage = chunk.usage
    assert "".join(pieces) == text, ("".join(pieces), text)
    assert finish in ("stop", "length")
    assert usage is not None and usage.completion_tokens == completion.usage.completion_tokens

    # Routing by our extension fields through `extra_body`.
    routed = client.chat.completions.create(
        model="auto", messages=messages, extra_body={"route_strategy": {"cost_weight": 1, "quality_weight": 0}},
    )
    assert routed.model == "sim-mini", routed.model

    # Typed errors from our error envelopes.
    expect(openai.NotFoundError, lambda: client.chat.completions.create(model="no-such-model", messages=messages))
    expect(openai.BadRequestError, lambda: client.chat.completions.create(model="auto", messages=[]))
    budget = expect(openai.APIStatusError, lambda: client.chat.completions.create(
        model="auto", messages=messages, extra_body={"budget_limit": 0.000001}))
    assert budget.status_code == 402 and budget.code == "budget_exceeded", (budget.status_code, budget.code)
    bad_key = openai.OpenAI(base_url=base_url, api_key="tka_wrong", max_retries=0)
    expect(openai.AuthenticationError, lambda: bad_key.chat.completions.create(model="auto", messages=messages))

    ids = [model.id for model in client.models.list()]
    assert "sim-pro" in ids, ids
    print("ok")


def expect(kind, call):
    try:
        call()
    except kind as err:
        return err
    raise AssertionError(f"expected {kind.__name__}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
