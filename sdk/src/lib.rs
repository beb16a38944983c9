//! Typed async client for the tokctl service.
//!
//! This crate is a skeleton for now: the client lands with the SDK issue. Until then the
//! reference server (`tokctl-server`) and its README walk-through are the way to use the API.
