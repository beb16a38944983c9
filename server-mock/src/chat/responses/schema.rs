//! `/v1/responses` in the OpenAPI document: OpenAI's Responses request with every bound the
//! gateway enforces (`mod.rs`, `chat/form/responses.rs`), its whole and streamed answers; errors
//! in OpenAI's envelope, as on chat completions.

use serde_json::{Value, json};

/// Adds the Responses operation and shapes to `document`.
pub fn describe(document: &mut Value) {
    let error = |description: &str| json!({"description": description, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OpenAiError"}}}});
    let header =
        |description: &str| json!({"description": description, "schema": {"type": "string"}});
    document["paths"]["/v1/responses"] = json!({"post": {
        "tags": ["chat"],
        "operationId": "create_response",
        "summary": "Create a response (OpenAI's Responses API, stateless), for Codex CLI and OpenAI's SDKs",
        "description": "Routed, limited and billed as chat completions are; the extensions come as headers (`x-tokctl-budget-limit`, `x-tokctl-route-strategy`, `x-tokctl-agent-wallet`). Stateless: `store: true`, `previous_response_id` and `conversation` are refused; send the whole input each turn. With `stream: true` the answer is the Responses events, each with its `sequence_number`: `response.created`, `response.in_progress`, per output item `response.output_item.added`, its pieces and `response.output_item.done`, then `response.completed` or `response.failed`.",
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ResponsesRequest"}}}},
        "responses": {
            "200": {"description": "The answer, whole or streamed", "headers": {
                "x-tokctl-routed-model": header("The catalogue model that answered"),
                "x-tokctl-route-reason": header("Why it was chosen (whole answers)"),
                "x-tokctl-credits-consumed": header("What a whole answer cost, exact decimal credits"),
                "x-tokctl-dropped": header("What the translation left out, comma-separated")
            }, "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/ResponseObject"}},
                "text/event-stream": {"schema": {
                    "description": "Each server-sent event: its name (`event:`) and its data, an object whose `type` is the event's name and which carries `sequence_number`",
                    "type": "object", "required": ["data"],
                    "properties": {"event": {"type": "string"}, "data": {"type": "string", "contentMediaType": "application/json"}}
                }}
            }},
            "400": error("Not a Responses request (`param` names the field), or state asked of a stateless gateway"),
            "401": error("Missing, unknown, revoked or expired credential"),
            "402": error("Budget, credit limit or x402 payment (as on chat completions)"),
            "403": error("The credential lacks `chat:write`"),
            "404": error("No such model (`model_not_found`)"),
            "413": error("The body is over 32 MiB"),
            "429": error("Rate limited"),
            "502": error("Every candidate upstream failed before answering"),
            "503": error("No candidate may be tried now (`Retry-After`)"),
            "504": error("Every candidate upstream timed out")
        }
    }});
    shapes(&mut document["components"]["schemas"]);
}

fn shapes(schemas: &mut Value) {
    let string = json!({"type": "string"});
    let nullable = |schema: Value| json!({"anyOf": [schema, {"type": "null"}]});
    let text = json!({"type": "object", "required": ["type", "text"], "properties": {
        "type": {"enum": ["input_text", "output_text"]}, "text": string}});
    let other = json!({"not": {"type": "object", "required": ["type"],
        "properties": {"type": {"enum": ["input_text", "output_text", "input_image"]}}},
        "description": "A part of any other type (files, refusals, ...): dropped"});
    let image = json!({"type": "object", "required": ["type"], "properties": {"type": {"const": "input_image"}},
        "description": "By `image_url` (a data: URI or an address); by `file_id` alone it is dropped"});
    let unread_image = json!({"type": "object", "required": ["type"], "properties": {
        "type": {"const": "input_image"}, "image_url": {"not": {"type": "string"}}}});
    let content = |parts: Value| json!({"anyOf": [{"type": "null"}, string, {"type": "array", "items": parts}]});
    schemas["ResponsesContent"] = content(json!({"anyOf": [text, image, other]}));
    schemas["ResponsesSystemContent"] = content(json!({"anyOf": [text, unread_image, other]}));
    let known = ["message", "function_call", "function_call_output"];
    schemas["ResponsesItem"] = json!({"anyOf": [
        {"type": "object", "required": ["role"], "properties": {"type": {"const": "message"},
            "role": {"enum": ["user", "assistant"]}, "content": {"$ref": "#/components/schemas/ResponsesContent"}}},
        {"type": "object", "required": ["role"], "properties": {"type": {"const": "message"},
            "role": {"enum": ["system", "developer"]}, "content": {"$ref": "#/components/schemas/ResponsesSystemContent"}}},
        {"type": "object", "required": ["type", "call_id", "name"], "properties": {
            "type": {"const": "function_call"}, "call_id": string, "name": string, "arguments": nullable(string.clone())},
         "description": "`arguments` that are not the JSON text of an object are sent as none, and named in x-tokctl-dropped"},
        {"type": "object", "required": ["type", "call_id"], "properties": {
            "type": {"const": "function_call_output"}, "call_id": string, "output": {"$ref": "#/components/schemas/ResponsesContent"}}},
        {"type": "object", "required": ["type"], "properties": {"type": {"type": "string", "not": {"enum": known}}},
         "description": "An item of any other type (reasoning passed back, hosted tools' calls): dropped"},
        {"type": "object", "not": {"anyOf": [{"required": ["type"]}, {"required": ["role"]}]}}
    ]});
    let function = json!({"type": "object", "required": ["type", "name"], "properties": {
        "type": {"const": "function"}, "name": string}});
    let inner = json!({"anyOf": [function, {"not": {"type": "object", "required": ["type"], "properties": {"type": {"const": "function"}}}}]});
    let tool = json!({"anyOf": [
        function,
        {"type": "object", "required": ["type", "name"], "description": "A namespace's functions go to a model as functions named `{namespace}__{name}`, and come back under their own names with `namespace`",
         "properties": {"type": {"const": "namespace"}, "name": string,
            "tools": {"anyOf": [{"type": "array", "items": inner}, {"not": {"type": "array"}}]}}},
        {"type": "object", "required": ["type"], "description": "A hosted tool (web search, ...): dropped",
         "properties": {"type": {"type": "string", "not": {"enum": ["function", "namespace"]}}}}
    ]});
    schemas["ResponsesRequest"] = json!({
        "type": "object",
        "required": ["model", "input"],
        "description": "OpenAI's Responses request, stateless. Fields not listed (`reasoning`, `include`, `prompt_cache_key`, `metadata`, ...) are dropped and named in `x-tokctl-dropped`.",
        "example": {"model": "auto", "input": "Say hello", "max_output_tokens": 64},
        "properties": {
            "model": {"type": "string", "pattern": r"\S", "description": "A model id or alias (`GET /v1/models`), or `auto`, `auto-fast`, `auto-cheap`"},
            "input": {"anyOf": [string, {"type": "array", "items": {"$ref": "#/components/schemas/ResponsesItem"}}]},
            "instructions": nullable(string.clone()),
            "tools": nullable(json!({"type": "array", "items": tool})),
            "tool_choice": {"anyOf": [{"type": "null"}, {"enum": ["auto", "required", "none"]}, {"type": "object"}]},
            "parallel_tool_calls": nullable(json!({"type": "boolean"})),
            "max_output_tokens": nullable(json!({"type": "integer", "minimum": 1, "maximum": i64::MAX})),
            "temperature": nullable(json!({"type": "number", "minimum": 0, "maximum": 2})),
            "top_p": nullable(json!({"type": "number"})),
            "text": nullable(json!({"type": "object", "properties": {"format": {"type": "object", "required": ["type"],
                "properties": {"type": {"enum": ["text", "json_object", "json_schema"]}}}}})),
            "stream": nullable(json!({"type": "boolean"})),
            "store": {"not": {"const": true}, "description": "Refused when true: the gateway keeps nothing"},
            "previous_response_id": {"type": "null", "description": "Refused when set: the gateway keeps nothing"},
            "conversation": {"type": "null", "description": "Refused when set: the gateway keeps nothing"}
        }
    });
    schemas["ResponseObject"] = json!({
        "type": "object",
        "required": ["id", "object", "created_at", "status", "model", "output", "usage"],
        "properties": {
            "id": string, "object": {"const": "response"}, "created_at": {"type": "integer"},
            "status": {"enum": ["completed", "incomplete", "failed", "in_progress"]},
            "model": string,
            "output": {"type": "array", "items": {"type": "object", "required": ["type"]}},
            "usage": {"type": "object", "required": ["input_tokens", "output_tokens", "total_tokens"], "properties": {
                "input_tokens": {"type": "integer", "minimum": 0}, "output_tokens": {"type": "integer", "minimum": 0},
                "total_tokens": {"type": "integer", "minimum": 0}}}
        }
    });
}
