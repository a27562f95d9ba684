//! The sysbench unit dialect (being written).
