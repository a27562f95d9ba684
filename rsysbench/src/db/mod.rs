//! sysbench's database driver layer (placeholder until the drivers land).
