//! The gateway in the OpenAPI document: `POST /v1/chat/completions`, its request, its whole and
//! streamed answers, and OpenAI's error envelope. The gateway reads requests and writes answers
//! with its own code (`decode`, `request`, `wire`); this is their description, kept beside them,
//! with every bound `ChatRequest::check` enforces.

use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

use super::request::{MAX_BUDGET_CREDITS, ROLES};

/// OpenAI's error envelope, which every gateway error (and every error on `/v1/models`) uses.
#[derive(Serialize, ToSchema)]
pub struct OpenAiError {
    pub error: OpenAiErrorDetail,
}

/// The inside of [`OpenAiError`].
#[derive(Serialize, ToSchema)]
pub struct OpenAiErrorDetail {
    /// What went wrong, in words.
    pub message: String,
    /// `invalid_request_error`, `authentication_error`, `permission_error`,
    /// `rate_limit_error` or `api_error`.
    #[serde(rename = "type")]
    pub kind: String,
    /// e.g. `invalid_value`, `model_not_found`, `budget_exceeded`, `credit_limit_reached`,
    /// `invalid_api_key`, `upstream_error`, `payment_required`, `invalid_payment`.
    pub code: Option<String>,
    /// The request field at fault, if one is.
    pub param: Option<String>,
    /// With `payment_required` and `invalid_payment`: the x402 offer (PaymentRequired, as in
    /// the `PAYMENT-REQUIRED` header).
    #[schema(value_type = Option<Object>)]
    pub x402: Option<serde_json::Value>,
}

/// Adds the gateway's operation and shapes to `document`.
pub fn describe(document: &mut Value) {
    let error = |description: &str| json!({"description": description, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OpenAiError"}}}});
    document["paths"]["/v1/chat/completions"] = json!({"post": {
        "tags": ["chat"],
        "operationId": "create_chat_completion",
        "summary": "Create a chat completion (OpenAI-compatible), routed by cost and quality",
        "description": "Whole answers are JSON; with `stream: true` the answer is server-sent events: `data: <ChatCompletionChunk>` events, the last chunk with an empty `delta`, `finish_reason` and `platform`, a chunk with `usage` when `stream_options.include_usage` is set, then `data: [DONE]`. An upstream failure after the first chunk is a `data: <OpenAiError>` event followed by `[DONE]`.",
        "parameters": [
            {"name": "PAYMENT-SIGNATURE", "in": "header", "required": false, "schema": {"type": "string"},
             "description": "An x402 payment (v2: base64 of the PaymentPayload JSON) for a request naming `agent_wallet` on a workspace with x402 terms (`PUT /v1/x402`); `X-PAYMENT` is read as v1's. Empty (or only whitespace) counts as absent: the answer is the 402 offer, as x402's own servers answer; a value that is not base64 of JSON is 400 `invalid_payment`"}
        ],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ChatCompletionRequest"}}}},
        "responses": {
            "200": {"description": "The answer, whole or streamed", "headers": {
                "PAYMENT-RESPONSE": {"description": "For a paid request, whole answers and `exact` streams: base64 of the x402 SettleResponse (`success`, `transaction`, `network`, `payer`, `amount`); a streamed `upto` payment is in the final chunk's `platform.settlement`", "schema": {"type": "string"}}
            }, "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/ChatCompletion"}},
                "text/event-stream": {"schema": {
                    "description": "Each server-sent event (as OpenAPI 3.2's itemSchema): its `data` a ChatCompletionChunk, an OpenAiError after a failure mid-stream, or `[DONE]` last",
                    "type": "object",
                    "required": ["data"],
                    "properties": {"data": {"anyOf": [
                        {"const": "[DONE]"},
                        {"type": "string", "contentMediaType": "application/json", "contentSchema": {"anyOf": [
                            {"$ref": "#/components/schemas/ChatCompletionChunk"},
                            {"$ref": "#/components/schemas/OpenAiError"}
                        ]}}
                    ]}}
                }}
            }},
            "400": error("Malformed body or a value out of bounds (`param` names the field); or a payment header that is not base64 of JSON (`invalid_payment`)"),
            "401": error("Missing, unknown, revoked or expired credential"),
            "402": {
                "description": "No model's worst-case cost fits `budget_limit` (`budget_exceeded`); or the token's spending limit leaves less than the worst case of every candidate model (`credit_limit_reached`: the error adds `credit_limit`, `spent`, `reserved`, `worst_case` and `resets_at`, and `Retry-After` gives the seconds until the reset); or, for a request naming `agent_wallet` on a workspace with x402 terms, payment required (`payment_required`) or the payment refused (`invalid_payment`, the message says why): `PAYMENT-REQUIRED` and the error's `x402` hold the offer, `upto` for the dearest worst case among the candidates the request could be routed to, `exact` for the first candidate's",
                "headers": {"PAYMENT-REQUIRED": {"description": "base64 of the x402 PaymentRequired JSON (version 2)", "schema": {"type": "string"}},
                    "Retry-After": {"description": "With `credit_limit_reached` for a calendar period: whole seconds until the limit resets", "schema": {"type": "integer"}}},
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OpenAiError"}}}
            },
            "403": error("The credential lacks `chat:write`"),
            "404": error("No such model (`model_not_found`)"),
            "429": error("Rate limited"),
            "502": error("Every candidate upstream failed before answering"),
            "503": {
                "description": "No candidate upstream may be tried now: the circuit of each is open after recent failures (`upstreams_unavailable`); the message says why for each. Or the x402 facilitator cannot be reached to check or settle a payment (`facilitator_unavailable`): nothing is served unpaid",
                "headers": {"Retry-After": {"description": "Seconds until the first of them may be tried again", "schema": {"type": "integer", "minimum": 1}}},
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OpenAiError"}}}
            },
            "504": error("Every candidate upstream timed out")
        }
    }});
    let schemas = &mut document["components"]["schemas"];
    let nullable = |schema: Value| json!({"anyOf": [schema, {"type": "null"}]});
    let content = json!({"anyOf": [
        {"type": "string"},
        {"type": "array", "description": "Content parts; the `text` of each counts as prompt"}
    ]});
    let others: Vec<&str> = ROLES
        .iter()
        .copied()
        .filter(|r| *r != "assistant")
        .collect();
    schemas["ChatMessage"] = json!({
        "description": "One message. Fields besides `role` and `content` (`name`, `tool_calls`, `tool_call_id`, ...) are passed to the upstream unchanged. Only an assistant message may leave `content` out or null (when it calls tools).",
        "anyOf": [
            {"type": "object", "required": ["role", "content"],
             "properties": {"role": {"type": "string", "enum": others}, "content": content}},
            {"type": "object", "required": ["role"],
             "properties": {"role": {"const": "assistant"}, "content": nullable(content.clone())}}
        ]
    });
    schemas["ChatCompletionRequest"] = json!({
        "type": "object",
        "required": ["model", "messages"],
        "description": "Fields not listed here (`top_p`, `n`, `stop`, `user`, ...) are passed to an OpenAI-compatible upstream unchanged.",
        "example": {"model": "auto", "max_tokens": 64, "budget_limit": 0.05,
                    "messages": [{"role": "user", "content": "Say hello"}]},
        "properties": {
            "model": {"type": "string", "pattern": r"\S", "description": "A model id (`GET /v1/models`), or `auto`, `auto-fast`, `auto-cheap`"},
            "messages": {"type": "array", "minItems": 1, "items": {"$ref": "#/components/schemas/ChatMessage"}},
            "stream": nullable(json!({"type": "boolean", "description": "Answer as server-sent events; default false"})),
            "stream_options": nullable(json!({"type": "object", "properties": {"include_usage": {"type": "boolean"}}})),
            "max_tokens": nullable(json!({"type": "integer", "minimum": 1, "maximum": i64::MAX, "description": "Most completion tokens (capped by the model's own maximum)"})),
            "max_completion_tokens": nullable(json!({"type": "integer", "minimum": 1, "maximum": i64::MAX, "description": "OpenAI's newer name for `max_tokens`; `max_tokens` wins when both are given"})),
            "temperature": nullable(json!({"type": "number", "minimum": 0, "maximum": 2})),
            "tools": nullable(json!({"type": "array", "items": {"type": "object"}, "description": "Tool definitions, passed to the upstream unchanged"})),
            "tool_choice": nullable(json!({"anyOf": [{"type": "string"}, {"type": "object"}]})),
            "route_strategy": nullable(json!({
                "type": "object",
                "description": "Weights for `auto` (each 0.5 when left out); not both 0",
                "properties": {
                    "cost_weight": nullable(json!({"type": "number", "minimum": 0, "maximum": 1})),
                    "quality_weight": nullable(json!({"type": "number", "minimum": 0, "maximum": 1}))
                },
                "not": {"required": ["cost_weight", "quality_weight"],
                        "properties": {"cost_weight": {"const": 0}, "quality_weight": {"const": 0}}}
            })),
            "budget_limit": nullable(json!({"type": "number", "minimum": 0.000_000_001, "maximum": MAX_BUDGET_CREDITS,
                "description": "Most credits this request may consume, compared exactly; digits below 10^-9 credit are cut off"})),
            "agent_wallet": nullable(json!({"type": "string", "pattern": "^0x[0-9a-fA-F]{40}$", "description": "The paying agent's address. Recorded with the ledger entry; on a workspace with x402 terms the request must carry an x402 payment signed by it (`PAYMENT-SIGNATURE`), else 402 with the offer"}))
        }
    });
    let credits =
        |description: &str| json!({"type": "number", "minimum": 0, "description": description});
    schemas["Platform"] = json!({
        "type": "object",
        "required": ["routed_model", "route_reason", "credits_consumed", "cost_saved_credits"],
        "properties": {
            "routed_model": {"type": "string"},
            "route_reason": {"type": "string", "description": "Why this model, in words, and which failed before it"},
            "credits_consumed": credits("Exact decimal, to the nano-credit"),
            "cost_saved_credits": credits("What the highest-quality model would have cost, minus credits_consumed; exact"),
            "upstream_finish_reason": {"type": "string", "description": "The provider's own reason the answer ended, when it is one chat completions has no word for (finish_reason is then stop)"},
            "settlement": {
                "type": "object",
                "description": "For a request paid with x402: what was settled. `pending` is retried until settled or the authorization runs out.",
                "required": ["status", "scheme", "network", "payer", "amount"],
                "properties": {
                    "status": {"type": "string", "enum": ["settled", "pending", "failed"]},
                    "scheme": {"type": "string", "enum": ["exact", "upto"]},
                    "network": {"type": "string"},
                    "payer": {"type": "string"},
                    "amount": {"type": "string", "pattern": "^[0-9]+$", "description": "Atomic units of the token"},
                    "transaction": {"type": "string"},
                    "error": {"type": "string"}
                }
            }
        }
    });
    schemas["Usage"] = json!({
        "type": "object",
        "required": ["prompt_tokens", "completion_tokens", "total_tokens"],
        "properties": {
            "prompt_tokens": {"type": "integer", "minimum": 0},
            "completion_tokens": {"type": "integer", "minimum": 0},
            "total_tokens": {"type": "integer", "minimum": 0},
            "prompt_tokens_details": {
                "description": "Present when the provider reported prompt tokens read from (or written to) its cache, which are charged at the model's cache prices",
                "type": "object",
                "required": ["cached_tokens"],
                "properties": {
                    "cached_tokens": {"type": "integer", "minimum": 0},
                    "cache_write_tokens": {"type": "integer", "minimum": 0},
                    "cache_write_1h_tokens": {"type": "integer", "minimum": 0}
                }
            },
            "completion_tokens_details": {
                "description": "Present when the provider reported reasoning tokens",
                "type": "object",
                "required": ["reasoning_tokens"],
                "properties": {"reasoning_tokens": {"type": "integer", "minimum": 0}}
            }
        }
    });
    schemas["ChatCompletion"] = json!({
        "type": "object",
        "required": ["id", "object", "created", "model", "choices", "usage", "platform"],
        "properties": {
            "id": {"type": "string"},
            "object": {"const": "chat.completion"},
            "created": {"type": "integer", "description": "Unix time in seconds"},
            "model": {"type": "string"},
            "choices": {"type": "array", "items": {
                "type": "object", "required": ["index", "message", "finish_reason"],
                "properties": {
                    "index": {"type": "integer", "minimum": 0},
                    "message": {"type": "object", "required": ["role"], "properties": {"role": {"type": "string"}, "content": {"type": ["string", "null"]}}},
                    "finish_reason": {"type": "string"}
                }
            }},
            "usage": {"$ref": "#/components/schemas/Usage"},
            "platform": {"$ref": "#/components/schemas/Platform"}
        }
    });
    schemas["ChatCompletionChunk"] = json!({
        "type": "object",
        "required": ["id", "object", "created", "model", "choices"],
        "description": "One streamed event. The last chunk with choices has an empty `delta`, `finish_reason` and `platform`; the `usage` chunk has empty `choices`.",
        "properties": {
            "id": {"type": "string"},
            "object": {"const": "chat.completion.chunk"},
            "created": {"type": "integer"},
            "model": {"type": "string"},
            "choices": {"type": "array", "items": {
                "type": "object", "required": ["index", "delta", "finish_reason"],
                "properties": {
                    "index": {"type": "integer", "minimum": 0},
                    "delta": {"type": "object", "description": "`role` and `content` pieces, or tool calls; `{}` on the last chunk"},
                    "finish_reason": {"type": ["string", "null"]}
                }
            }},
            "usage": {"$ref": "#/components/schemas/Usage"},
            "platform": {"$ref": "#/components/schemas/Platform"}
        }
    });
}
