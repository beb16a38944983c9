//! `/v1/messages` and `/v1/messages/count_tokens` in the OpenAPI document: Anthropic's request
//! with every bound the gateway enforces (`read.rs`, `chat/form/messages.rs`), its whole and
//! streamed answers, and Anthropic's error envelope.

use serde_json::{Value, json};

/// Block types the reader knows; any other block is dropped, not refused.
const KNOWN_BLOCKS: [&str; 4] = ["text", "image", "tool_use", "tool_result"];

/// Adds the Messages operations and shapes to `document`.
pub fn describe(document: &mut Value) {
    let error = |description: &str| json!({"description": description, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/AnthropicError"}}}});
    let headers = json!({
        "x-tokctl-routed-model": {"description": "The catalogue model that answered", "schema": {"type": "string"}},
        "x-tokctl-route-reason": {"description": "Why it was chosen, and which failed before it (whole answers)", "schema": {"type": "string"}},
        "x-tokctl-credits-consumed": {"description": "What a whole answer cost, exact decimal credits", "schema": {"type": "string"}},
        "x-tokctl-dropped": {"description": "For a model that is not Anthropic's: what the translation left out, comma-separated (`thinking`, `cache_control`, `tools.web_search_20250305`, ...)", "schema": {"type": "string"}},
        "x-tokctl-request-id": {"description": "The request's id (as `x-request-id`)", "schema": {"type": "string"}}
    });
    let refusals = json!({
        "400": error("Not a Messages request (the message names the field)"),
        "401": error("Missing, unknown, revoked or expired credential (`Authorization: Bearer` or `x-api-key`)"),
        "403": error("The credential lacks `chat:write`"),
        "404": error("No such model (`not_found_error`)"),
        "413": error("The body is over 32 MiB (`request_too_large`)"),
        "429": error("Rate limited (`rate_limit_error`), or an Anthropic upstream's own 429, relayed with its `Retry-After`")
    });
    let mut create = json!({
        "tags": ["chat"],
        "operationId": "create_message",
        "summary": "Create a message (Anthropic's Messages API), for Claude Code and Anthropic's SDKs",
        "description": "Routed, limited and billed as chat completions are. The body's extensions come as headers: `x-tokctl-budget-limit` (credits), `x-tokctl-route-strategy` (`cost_weight=W,quality_weight=W`), `x-tokctl-agent-wallet`. An Anthropic model is sent the client's body unchanged but for the model's name and the cap, with the client's `anthropic-version` and `anthropic-beta`, and its answer (and its errors) come back as it wrote them; any other model's answer is written as Anthropic's. With `stream: true` the answer is Anthropic's events: `message_start`, `ping`, `content_block_start`/`_delta`/`_stop` per block, `message_delta` (stop reason, usage), `message_stop`; a failure after the start is an `error` event.",
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/MessagesRequest"}}}},
        "responses": {
            "200": {"description": "The answer, whole or streamed", "headers": headers, "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/Message"}},
                "text/event-stream": {"schema": {
                    "description": "Each server-sent event: its name (`event:`) and its data, an object whose `type` is the event's name",
                    "type": "object", "required": ["data"],
                    "properties": {"event": {"type": "string"}, "data": {"type": "string", "contentMediaType": "application/json"}}
                }}
            }},
            "402": error("No model's worst case fits `x-tokctl-budget-limit`, the token's credit limit is reached, or an x402 payment is required or refused (`billing_error`)"),
            "502": error("Every candidate upstream failed before answering (`api_error`)"),
            "503": error("No candidate may be tried now, each circuit open (`overloaded_error`, `Retry-After`)"),
            "504": error("Every candidate upstream timed out (`timeout_error`)"),
            "529": error("An Anthropic upstream's own overload, relayed")
        }
    });
    extend(&mut create["responses"], &refusals);
    document["paths"]["/v1/messages"] = json!({"post": create});
    let mut count = json!({
        "tags": ["chat"],
        "operationId": "count_message_tokens",
        "summary": "Count a Messages request's input tokens: asked of an Anthropic model's upstream, else estimated; no credits",
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/MessagesCountRequest"}}}},
        "responses": {
            "200": {"description": "The count", "content": {"application/json": {"schema": {
                "type": "object", "required": ["input_tokens"],
                "properties": {"input_tokens": {"type": "integer", "minimum": 0}}}}}},
            "502": error("The upstream could not count")
        }
    });
    extend(&mut count["responses"], &refusals);
    document["paths"]["/v1/messages/count_tokens"] = json!({"post": count});
    shapes(&mut document["components"]["schemas"]);
}

fn extend(into: &mut Value, from: &Value) {
    if let (Some(into), Some(from)) = (into.as_object_mut(), from.as_object()) {
        into.extend(from.clone());
    }
}

fn shapes(schemas: &mut Value) {
    let string = json!({"type": "string"});
    let unknown = json!({"not": {"type": "object", "required": ["type"],
        "properties": {"type": {"enum": KNOWN_BLOCKS}}},
        "description": "A block of any other type (thinking, server tools' blocks, ...): dropped for a model that is not Anthropic's"});
    let text = json!({"type": "object", "required": ["type", "text"],
        "properties": {"type": {"const": "text"}, "text": string}});
    let image = json!({"type": "object", "required": ["type", "source"], "properties": {
    "type": {"const": "image"},
    "source": {"anyOf": [
        {"type": "object", "required": ["type", "media_type", "data"], "properties": {"type": {"const": "base64"}, "media_type": string, "data": string}},
        {"type": "object", "required": ["type", "url"], "properties": {"type": {"const": "url"}, "url": string}}
    ]}}});
    let tool_use = json!({"type": "object", "required": ["type", "id", "name"], "properties": {
        "type": {"const": "tool_use"}, "id": string, "name": string, "input": {"type": ["object", "null"]}}});
    let tool_result = json!({"type": "object", "required": ["type", "tool_use_id"], "properties": {
        "type": {"const": "tool_result"}, "tool_use_id": string,
        "content": {"$ref": "#/components/schemas/MessageContent"}}});
    schemas["MessageBlock"] = json!({"anyOf": [text, image, tool_use, tool_result, unknown]});
    schemas["MessageContent"] = json!({"anyOf": [{"type": "null"}, string,
        {"type": "array", "items": {"$ref": "#/components/schemas/MessageBlock"}}]});
    schemas["SystemContent"] = json!({"anyOf": [{"type": "null"}, string,
        {"type": "array", "items": {"anyOf": [text, unknown]}}],
        "description": "Text, or text blocks (`cache_control` dropped for a model that is not Anthropic's)"});
    schemas["MessagesTurn"] = json!({"anyOf": [
        {"type": "object", "required": ["role"], "properties": {
            "role": {"enum": ["user", "assistant"]}, "content": {"$ref": "#/components/schemas/MessageContent"}}},
        {"type": "object", "required": ["role"], "description": "A system turn among the messages, as Claude Code sends", "properties": {
            "role": {"const": "system"}, "content": {"$ref": "#/components/schemas/SystemContent"}}}
    ]});
    let tool = json!({"anyOf": [
        {"type": "object", "required": ["name"], "description": "A custom tool", "properties": {
            "name": string, "type": {"anyOf": [{"const": "custom"}, {"not": {"type": "string"}}]}}},
        {"type": "object", "required": ["type"], "description": "A server tool (web search, ...): dropped for a model that is not Anthropic's",
         "properties": {"type": {"type": "string", "not": {"const": "custom"}}}}
    ]});
    let nullable = |schema: Value| json!({"anyOf": [schema, {"type": "null"}]});
    let mut request = json!({
        "type": "object",
        "required": ["model", "max_tokens", "messages"],
        "description": "Anthropic's Messages request. Fields not listed (`thinking`, `context_management`, `output_config`, `metadata`, `top_k`, ...) go to an Anthropic model unchanged; for any other they are mapped where the model has an equivalent, else dropped and named in `x-tokctl-dropped`.",
        "example": {"model": "auto", "max_tokens": 64, "messages": [{"role": "user", "content": "Say hello"}]},
        "properties": {
            "model": {"type": "string", "pattern": r"\S", "description": "A model id or alias (`GET /v1/models`), or `auto`, `auto-fast`, `auto-cheap`"},
            "max_tokens": {"type": "integer", "minimum": 1, "maximum": i64::MAX},
            "stream": nullable(json!({"type": "boolean"})),
            "system": {"$ref": "#/components/schemas/SystemContent"},
            "messages": {"type": "array", "minItems": 1, "items": {"$ref": "#/components/schemas/MessagesTurn"}},
            "tools": nullable(json!({"type": "array", "items": tool})),
            "tool_choice": nullable(json!({"type": "object", "properties": {"type": {"enum": ["auto", "any", "none", "tool"]}}, "required": ["type"]})),
            "temperature": nullable(json!({"type": "number", "minimum": 0, "maximum": 2})),
            "top_p": nullable(json!({"type": "number"}))
        }
    });
    schemas["MessagesRequest"] = request.clone();
    request["required"] = json!(["model", "messages"]);
    if let Some(properties) = request["properties"].as_object_mut() {
        properties.remove("max_tokens");
        properties.remove("stream");
        // Counting reads the sampling settings' kinds, not their bounds.
        properties.insert("temperature".into(), nullable(json!({"type": "number"})));
    }
    schemas["MessagesCountRequest"] = request;
    schemas["Message"] = json!({
        "type": "object",
        "required": ["id", "type", "role", "model", "content", "stop_reason", "usage"],
        "properties": {
            "id": string, "type": {"const": "message"}, "role": {"const": "assistant"}, "model": string,
            "content": {"type": "array", "items": {"type": "object", "required": ["type"]}},
            "stop_reason": {"type": ["string", "null"]},
            "stop_sequence": {"type": ["string", "null"]},
            "usage": {"type": "object", "required": ["input_tokens", "output_tokens"], "properties": {
                "input_tokens": {"type": "integer", "minimum": 0}, "output_tokens": {"type": "integer", "minimum": 0},
                "cache_creation_input_tokens": {"type": ["integer", "null"], "minimum": 0},
                "cache_read_input_tokens": {"type": ["integer", "null"], "minimum": 0}}}
        }
    });
    schemas["AnthropicError"] = json!({
        "type": "object", "required": ["type", "error"],
        "properties": {"type": {"const": "error"}, "error": {
            "type": "object", "required": ["type", "message"],
            "properties": {"type": {"type": "string", "description": "`invalid_request_error`, `authentication_error`, `billing_error`, `permission_error`, `not_found_error`, `request_too_large`, `rate_limit_error`, `api_error`, `overloaded_error`, `timeout_error`"}, "message": string}}}
    });
}
