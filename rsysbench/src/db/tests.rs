//! Tests against the servers (filled below).
