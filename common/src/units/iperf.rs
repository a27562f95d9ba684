//! The iperf unit dialect (being written).
