"""OpenAI's official Python client against the gateway's /v1/responses (issue 38): a simulated
model whole and streamed, and Claude behind the gateway (the faithful mock, reached through the
internal form) for a function call round trip whole and streamed; statefulness refused; errors
raised as the client's typed exceptions.

Usage: python responses_e2e.py BASE_URL API_KEY   (BASE_URL like http://127.0.0.1:PORT/v1)
Exits 0 and prints "ok" when every check holds.
"""

import json
import sys

import openai

TOOLS = [{
    "type": "function",
    "name": "get_weather",
    "description": "The weather in a city now",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}, "required": ["city"]},
}]


def main(base_url, api_key):
    client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0)

    # A simulated model, whole and streamed: the same text both ways.
    whole = client.responses.create(model="local", input="tell me about tokens", store=False)
    assert whole.status == "completed", whole
    assert "You said: tell me about tokens" in whole.output_text, whole
    assert whole.usage.output_tokens > 0 and whole.usage.total_tokens == whole.usage.input_tokens + whole.usage.output_tokens, whole.usage
    deltas = []
    with client.responses.stream(model="local", input="tell me about tokens", store=False) as stream:
        for event in stream:
            if event.type == "response.output_text.delta":
                deltas.append(event.delta)
        final = stream.get_final_response()
    assert "".join(deltas) == whole.output_text, (deltas, whole.output_text)
    assert final.output_text == whole.output_text and final.status == "completed", final

    # A function call round trip through Claude, whole.
    items = [{"role": "user", "content": "What is the weather in Paris?"}]
    first = client.responses.create(model="claude", input=items, tools=TOOLS, store=False)
    call = next(item for item in first.output if item.type == "function_call")
    assert call.name == "get_weather" and json.loads(call.arguments) == {"city": "Paris", "unit": "celsius"}, call
    items += [item.model_dump(exclude_none=True) for item in first.output]
    items.append({"type": "function_call_output", "call_id": call.call_id, "output": "18C, sunny"})
    second = client.responses.create(model="claude", input=items, tools=TOOLS, store=False)
    assert second.output_text == "It is 18°C in Paris.", second

    # The same call, streamed.
    with client.responses.stream(model="claude", input=items[:1], tools=TOOLS, store=False) as stream:
        arguments = "".join(e.delta for e in stream if e.type == "response.function_call_arguments.delta")
        streamed = stream.get_final_response()
    call = next(item for item in streamed.output if item.type == "function_call")
    assert json.loads(arguments) == json.loads(call.arguments) == {"city": "Paris", "unit": "celsius"}, (arguments, call)

    # Stateless: asked to store, refused with the reason.
    try:
        client.responses.create(model="local", input="hi", store=True)
        raise AssertionError("store=True was taken")
    except openai.BadRequestError as err:
        assert "stateless" in err.message, err.message
    stranger = openai.OpenAI(base_url=base_url, api_key="tkt_wrong", max_retries=0)
    try:
        stranger.responses.create(model="local", input="hi")
        raise AssertionError("a wrong key was taken")
    except openai.AuthenticationError:
        pass
    try:
        client.responses.create(model="gpt-9", input="hi")
        raise AssertionError("an unknown model was taken")
    except openai.NotFoundError:
        pass
    print("ok")


if __name__ == "__main__":
    main(*sys.argv[1:3])
