//! System variables (placeholder; being written).
