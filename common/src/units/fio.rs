//! The fio unit dialect (being written).
