//! The HTTP machinery under every resource: the connection loop (`listen`, `repoll`), the
//! outermost layers (`edge`: request ids, panics, the log line), the one error type and its
//! body (`error`), OpenAI's error envelope for the gateway's paths (`openai`) and Anthropic's for its
//! (`anthropic`), extractors
//! (`extract`), pagination, and the route registry (`routes`). Nothing here knows a resource.

pub mod anthropic;
pub mod edge;
pub mod error;
pub mod extract;
pub mod listen;
pub mod openai;
pub mod pagination;
pub mod repoll;
pub mod request_id;
pub mod routes;
