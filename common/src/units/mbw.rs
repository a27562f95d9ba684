//! The mbw unit dialect (being written).
