"""Holds the Anthropic mock to the official `anthropic` Python SDK's own types.

Usage: python anthropic_shapes.py SHAPES.json
SHAPES.json: {"messages": [...], "events": [...], "errors": [...], "requests": [...]} as the
mock sent them (messages, stream events, error bodies) and as the gateway sent it (requests).
Exits 0 and prints "ok" when every shape is one the SDK reads (and, for the mock's answers,
nothing in it is a field the SDK does not know); else says which and why.
"""

import json
import sys
import typing

import anthropic
import pydantic
from anthropic import types
from anthropic.types import message_create_params

# Sampling settings the Messages API takes under `anthropic-version: 2023-06-01` for the models
# that still accept them; the SDK's request types (2.x) no longer list them.
SAMPLING = {"temperature", "top_p", "top_k"}


def unknown_fields(value, path="$"):
    """Every field of a parsed SDK model (recursively) that the SDK's types do not declare."""
    found = []
    if isinstance(value, pydantic.BaseModel):
        for name in (value.__pydantic_extra__ or {}):
            found.append(f"{path}.{name}")
        for name in type(value).model_fields:
            found += unknown_fields(getattr(value, name), f"{path}.{name}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += unknown_fields(item, f"{path}[{i}]")
    return found


def check_message(message):
    parsed = types.Message.model_validate(message)
    extra = unknown_fields(parsed)
    assert not extra, f"fields the SDK does not know: {extra}"
    return parsed


EVENT = pydantic.TypeAdapter(types.RawMessageStreamEvent)


def check_event(event):
    kind = event.get("type")
    if kind == "ping":
        assert event == {"type": "ping"}, event
        return
    if kind == "error":
        parsed = types.ErrorResponse.model_validate({**event, "request_id": None})
        assert parsed.error.type, event
        return
    parsed = EVENT.validate_python(event)
    extra = unknown_fields(parsed)
    assert not extra, f"fields the SDK does not know: {extra}"


def check_error(body):
    parsed = types.ErrorResponse.model_validate(body)
    extra = unknown_fields(parsed)
    assert not extra, f"fields the SDK does not know: {extra}"


def request_keys():
    hints = typing.get_type_hints(message_create_params.MessageCreateParamsBase, include_extras=False, globalns=vars(message_create_params) | {"ClassVar": typing.ClassVar})
    return set(hints) | {"stream"} | SAMPLING


PARAMS = {
    False: pydantic.TypeAdapter(message_create_params.MessageCreateParamsNonStreaming),
    True: pydantic.TypeAdapter(message_create_params.MessageCreateParamsStreaming),
}


def check_request(body):
    known = request_keys()
    stray = set(body) - known
    assert not stray, f"request fields the SDK does not know: {sorted(stray)}"
    plain = {k: v for k, v in body.items() if k not in SAMPLING}
    PARAMS[bool(body.get("stream"))].validate_python(plain)


def main(path):
    shapes = json.load(open(path))
    counts = {}
    for kind, check in [("messages", check_message), ("events", check_event), ("errors", check_error), ("requests", check_request)]:
        for i, shape in enumerate(shapes.get(kind, [])):
            try:
                check(shape)
            except Exception as err:  # noqa: BLE001 - say which shape and why
                print(f"{kind}[{i}] is not what anthropic {anthropic.__version__} reads: {err}\n{json.dumps(shape)}")
                sys.exit(1)
        counts[kind] = len(shapes.get(kind, []))
    assert all(counts[k] > 0 for k in ("messages", "events", "errors", "requests")), counts
    print("ok", json.dumps(counts))


if __name__ == "__main__":
    main(sys.argv[1])
