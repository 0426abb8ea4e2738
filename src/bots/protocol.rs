//! Protocol v1 messages (docs/PROTOCOL.md). Placeholder.
