//! Hinger (placeholder).
