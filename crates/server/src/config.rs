//! Configuration (placeholder; being written).
