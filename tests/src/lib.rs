//! End-to-end tests across the tokctl crates live in `tests/`.
