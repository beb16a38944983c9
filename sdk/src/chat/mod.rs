//! Chat completions through the gateway, whole or streamed.

use std::pin::Pin;

use futures::{Stream, StreamExt};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

mod answer;

pub use answer::{
    ChatChunk, ChatCompletion, Choice, ChunkChoice, CompletionTokensDetails, Delta, Platform,
    PromptTokensDetails, Settlement, Usage,
};

use crate::client::Client;
use crate::credits;
use crate::error::{Error, RawBody, Result};

/// One message of a conversation. A tool-calling turn goes back as the assistant's message
/// (as answered, or [`ChatMessage::assistant_tool_calls`]) followed by one
/// [`ChatMessage::tool`] per call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ChatMessage {
    /// `system`, `user`, `assistant`, `tool` or `developer`.
    pub role: String,
    /// The text (`None` for an assistant message that only calls tools).
    #[serde(default)]
    pub content: Option<String>,
    /// A participant's name, to tell speakers of the same role apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Tool calls an assistant message makes, as the upstream sent them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Value>,
    /// On a `tool` message: the id of the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl ChatMessage {
    /// A message with `role` and `content`.
    pub fn new(role: impl Into<String>, content: impl Into<String>) -> Self {
        ChatMessage {
            role: role.into(),
            content: Some(content.into()),
            name: None,
            tool_calls: None,
            tool_call_id: None,
        }
    }

    /// A `system` message.
    pub fn system(content: impl Into<String>) -> Self {
        ChatMessage::new("system", content)
    }

    /// A `user` message.
    pub fn user(content: impl Into<String>) -> Self {
        ChatMessage::new("user", content)
    }

    /// An `assistant` message.
    pub fn assistant(content: impl Into<String>) -> Self {
        ChatMessage::new("assistant", content)
    }

    /// An `assistant` message that only calls tools: `content` is `null`, `tool_calls` is
    /// OpenAI's array (`[{"id", "type": "function", "function": {"name", "arguments"}}]`).
    pub fn assistant_tool_calls(tool_calls: Value) -> Self {
        ChatMessage {
            content: None,
            ..ChatMessage::new("assistant", "").tool_calls(tool_calls)
        }
    }

    /// A `tool` message: the result of the call `tool_call_id`.
    pub fn tool(tool_call_id: impl Into<String>, content: impl Into<String>) -> Self {
        ChatMessage {
            tool_call_id: Some(tool_call_id.into()),
            ..ChatMessage::new("tool", content)
        }
    }

    /// Sets the participant's name.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Sets the tool calls (OpenAI's array), passed to the upstream unchanged.
    pub fn tool_calls(mut self, tool_calls: Value) -> Self {
        self.tool_calls = Some(tool_calls);
        self
    }
}

/// Weights for `auto` routing.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RouteStrategy {
    /// How much price counts, 0 to 1.
    pub cost_weight: f64,
    /// How much quality counts, 0 to 1.
    pub quality_weight: f64,
}

#[derive(Debug, Clone, Serialize)]
struct StreamOptions {
    include_usage: bool,
}

/// A chat completion request: `ChatRequest::new("auto").message(ChatMessage::user("hi"))`.
#[derive(Debug, Clone, Serialize)]
pub struct ChatRequest {
    model: String,
    messages: Vec<ChatMessage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    route_strategy: Option<RouteStrategy>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "credits::option::serialize"
    )]
    budget_limit: Option<Decimal>,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent_wallet: Option<String>,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
}

impl ChatRequest {
    /// A request to `model`: a model id, or `auto`, `auto-fast`, `auto-cheap`.
    pub fn new(model: impl Into<String>) -> Self {
        ChatRequest {
            model: model.into(),
            messages: Vec::new(),
            max_tokens: None,
            temperature: None,
            tools: None,
            tool_choice: None,
            route_strategy: None,
            budget_limit: None,
            agent_wallet: None,
            stream: false,
            stream_options: None,
        }
    }

    /// Appends a message.
    pub fn message(mut self, message: ChatMessage) -> Self {
        self.messages.push(message);
        self
    }

    /// Appends several messages (a conversation so far).
    pub fn messages(mut self, messages: impl IntoIterator<Item = ChatMessage>) -> Self {
        self.messages.extend(messages);
        self
    }

    /// Most completion tokens.
    pub fn max_tokens(mut self, max: u32) -> Self {
        self.max_tokens = Some(max);
        self
    }

    /// Sampling temperature, 0 to 2.
    pub fn temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Tool definitions, passed to the upstream unchanged.
    pub fn tools(mut self, tools: Value) -> Self {
        self.tools = Some(tools);
        self
    }

    /// Tool selection (`"auto"`, `"none"`, or an object), passed unchanged.
    pub fn tool_choice(mut self, choice: Value) -> Self {
        self.tool_choice = Some(choice);
        self
    }

    /// Weights for `auto` routing.
    pub fn route_strategy(mut self, cost_weight: f64, quality_weight: f64) -> Self {
        self.route_strategy = Some(RouteStrategy {
            cost_weight,
            quality_weight,
        });
        self
    }

    /// Most credits this request may consume; routing only considers models whose worst case
    /// fits, compared exactly (to the nano-credit, 10^-9): `budget_limit(Decimal::new(5, 2))` is
    /// 0.05 credits.
    pub fn budget_limit(mut self, credits: Decimal) -> Self {
        self.budget_limit = Some(credits);
        self
    }

    /// Agent wallet (0x + 40 hex digits) recorded for settlement.
    pub fn agent_wallet(mut self, wallet: impl Into<String>) -> Self {
        self.agent_wallet = Some(wallet.into());
        self
    }
}

/// Streamed chunks; dropping it closes the connection.
pub type ChatStream = Pin<Box<dyn Stream<Item = Result<ChatChunk>> + Send>>;

/// Chat endpoints, from [`Client::chat`].
pub struct Chat<'c> {
    client: &'c Client,
}

impl<'c> Chat<'c> {
    pub(crate) fn new(client: &'c Client) -> Self {
        Chat { client }
    }

    /// A whole completion. Never retried on a server error (it may have been billed).
    /// Errors: 400 invalid request, 402 `budget_exceeded`, 404 `model_not_found`, 502 when every
    /// upstream failed.
    ///
    /// With a [`Wallet`](crate::x402::Wallet) on the client, the request names it as
    /// `agent_wallet` (unless it names one) and a 402 offering x402 payment is paid once: the
    /// wallet signs the offer (within its limit) and the request is sent again. The answer's
    /// `platform.settlement` says what was settled.
    pub async fn create(&self, request: &ChatRequest) -> Result<ChatCompletion> {
        let mut request = self.with_wallet(request)?;
        request.stream = false;
        request.stream_options = None;
        let url = self.client.chat_url();
        match self.client.post(url.clone(), Some(&request)).await {
            Err(err) => match self.payment_for(&err)? {
                Some(payment) => self.client.post_paid(url, &request, &payment).await,
                None => Err(err),
            },
            answered => answered,
        }
    }

    /// `request`, naming the client's wallet as `agent_wallet` when it names none; an error
    /// when it names another (the wallet could not pay for it).
    fn with_wallet(&self, request: &ChatRequest) -> Result<ChatRequest> {
        let mut request = request.clone();
        if let Some(wallet) = self.client.wallet() {
            let address = wallet.address();
            match &request.agent_wallet {
                None => request.agent_wallet = Some(address),
                Some(named) if named.eq_ignore_ascii_case(&address) => {}
                Some(named) => {
                    return Err(Error::Payment(format!(
                        "the request names agent_wallet {named}, but the client's wallet is {address}: it could not pay for another wallet"
                    )));
                }
            }
        }
        Ok(request)
    }

    /// The payment answering `err`, when it is a 402 with an x402 offer and the client has a
    /// wallet; `Err` when the wallet will not pay it.
    fn payment_for(&self, err: &Error) -> Result<Option<String>> {
        let (Some(wallet), Error::Api(api)) = (self.client.wallet(), err) else {
            return Ok(None);
        };
        match (&api.x402, api.status, api.code.as_str()) {
            (Some(offer), 402, "payment_required") => wallet.pay(offer).map(Some),
            _ => Ok(None),
        }
    }

    /// A streamed completion: chunks as they arrive, the last with `platform`, then one with
    /// `usage`. An upstream failure mid-stream is an `Err` item. Dropping the stream closes the
    /// connection, and the gateway stops generating.
    ///
    /// With a wallet on the client, an x402 offer is paid as for [`Chat::create`]; the final
    /// chunk's `platform.settlement` says what was settled.
    pub async fn create_stream(&self, request: &ChatRequest) -> Result<ChatStream> {
        let mut request = self.with_wallet(request)?;
        request.stream = true;
        request.stream_options = Some(StreamOptions {
            include_usage: true,
        });
        let body = serde_json::to_string(&request)
            .map_err(|err| Error::Config(format!("cannot encode the request: {err}")))?;
        let url = self.client.chat_url();
        let mut events = Box::pin(self.client.open_stream(url.clone(), body.clone(), None)?);
        // A refusal (a 402 asking for payment) comes as the first item: read it now, pay and
        // open again, or hand it on as the stream's first item.
        let first = events.next().await;
        let payment = match &first {
            Some(Err(err)) => self.payment_for(err)?,
            _ => None,
        };
        let events: std::pin::Pin<Box<dyn futures::Stream<Item = Result<String>> + Send>> =
            match payment {
                Some(payment) => Box::pin(self.client.open_stream(url, body, Some(&payment))?),
                None => Box::pin(futures::stream::iter(first).chain(events)),
            };
        Ok(Box::pin(events.map(|data| {
            let data = data?;
            let decode_error = |source| Error::Decode {
                source,
                body: RawBody::new(data.as_bytes()),
            };
            /// An event that reports a failure holds an `error` object.
            #[derive(Deserialize)]
            struct Failed<'a> {
                #[serde(borrow, default)]
                error: Option<&'a RawValue>,
            }
            let failed: Failed = serde_json::from_str(&data).map_err(decode_error)?;
            if failed.error.is_some_and(|e| e.get().starts_with('{')) {
                return Err(Error::from_response(
                    502,
                    &Default::default(),
                    data.as_bytes(),
                ));
            }
            // Read straight from the text, so that credit amounts keep their exact digits.
            serde_json::from_str(&data).map_err(decode_error)
        })))
    }
}
