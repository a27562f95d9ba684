//! The results each side sends after EXCHANGE_RESULTS (spec §2.6): CPU use,
//! whether the sender knows TCP retransmits, and one entry per stream.

use super::cjson::num;
use super::params::json_int;
use serde_json::{Map, Value};
use std::fmt;

/// One stream's totals as the peer saw them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StreamResults {
    pub id: i64,
    pub bytes: u64,
    pub retransmits: i64,
    /// Seconds (not ms).
    pub jitter: f64,
    pub errors: i64,
    pub packets: i64,
    pub start_time: f64,
    pub end_time: f64,
}

/// The server's own output, sent with `--get-server-output`.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerOutput {
    Json(Value),
    Text(String),
}

/// A whole results message.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PeerResults {
    pub cpu_util_total: f64,
    pub cpu_util_user: f64,
    pub cpu_util_system: f64,
    /// 1: sends TCP with retransmit info; 0: sends without; -1: only receives.
    pub sender_has_retransmits: i64,
    pub congestion_used: Option<String>,
    pub server_output: Option<ServerOutput>,
    pub streams: Vec<StreamResults>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultsError(pub &'static str);

impl fmt::Display for ResultsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for ResultsError {}

impl PeerResults {
    pub fn to_json(&self) -> Value {
        let mut j = Map::new();
        j.insert("cpu_util_total".into(), num(self.cpu_util_total));
        j.insert("cpu_util_user".into(), num(self.cpu_util_user));
        j.insert("cpu_util_system".into(), num(self.cpu_util_system));
        j.insert(
            "sender_has_retransmits".into(),
            self.sender_has_retransmits.into(),
        );
        if let Some(c) = &self.congestion_used {
            j.insert("congestion_used".into(), c.clone().into());
        }
        match &self.server_output {
            Some(ServerOutput::Json(v)) => {
                j.insert("server_output_json".into(), v.clone());
            }
            Some(ServerOutput::Text(t)) => {
                j.insert("server_output_text".into(), t.clone().into());
            }
            None => {}
        }
        let streams = self
            .streams
            .iter()
            .map(|s| {
                let mut m = Map::new();
                m.insert("id".into(), s.id.into());
                m.insert("bytes".into(), s.bytes.into());
                m.insert("retransmits".into(), s.retransmits.into());
                m.insert("jitter".into(), num(s.jitter));
                m.insert("errors".into(), s.errors.into());
                m.insert("packets".into(), s.packets.into());
                m.insert("start_time".into(), num(s.start_time));
                m.insert("end_time".into(), num(s.end_time));
                Value::Object(m)
            })
            .collect();
        j.insert("streams".into(), Value::Array(streams));
        Value::Object(j)
    }

    /// Read a results object. Required keys as in 3.12 (cpu keys,
    /// `sender_has_retransmits`, `streams` with id/bytes/retransmits/jitter/
    /// errors/packets); times are optional (pre-3.2 peers).
    pub fn from_json(v: &Value) -> Result<PeerResults, ResultsError> {
        let m = v
            .as_object()
            .ok_or(ResultsError("results are not a JSON object"))?;
        let f = |k: &'static str| -> Result<f64, ResultsError> {
            m.get(k)
                .and_then(Value::as_f64)
                .ok_or(ResultsError("unable to receive results"))
        };
        let mut r = PeerResults {
            cpu_util_total: f("cpu_util_total")?,
            cpu_util_user: f("cpu_util_user")?,
            cpu_util_system: f("cpu_util_system")?,
            sender_has_retransmits: m
                .get("sender_has_retransmits")
                .and_then(json_int)
                .ok_or(ResultsError("unable to receive results"))?,
            congestion_used: m
                .get("congestion_used")
                .and_then(Value::as_str)
                .map(str::to_string),
            server_output: None,
            streams: Vec::new(),
        };
        if let Some(j) = m.get("server_output_json") {
            r.server_output = Some(ServerOutput::Json(j.clone()));
        } else if let Some(t) = m.get("server_output_text").and_then(Value::as_str) {
            r.server_output = Some(ServerOutput::Text(t.to_string()));
        }
        let streams = m
            .get("streams")
            .and_then(Value::as_array)
            .ok_or(ResultsError("unable to receive results"))?;
        for s in streams {
            let s = s
                .as_object()
                .ok_or(ResultsError("unable to receive results"))?;
            let int = |k: &'static str| -> Result<i64, ResultsError> {
                s.get(k)
                    .and_then(json_int)
                    .ok_or(ResultsError("unable to receive results"))
            };
            r.streams.push(StreamResults {
                id: int("id")?,
                bytes: int("bytes")? as u64,
                retransmits: int("retransmits")?,
                jitter: s
                    .get("jitter")
                    .and_then(Value::as_f64)
                    .ok_or(ResultsError("unable to receive results"))?,
                errors: int("errors")?,
                packets: int("packets")?,
                start_time: s.get("start_time").and_then(Value::as_f64).unwrap_or(0.0),
                end_time: s.get("end_time").and_then(Value::as_f64).unwrap_or(0.0),
            });
        }
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::cjson::to_compact;
    use proptest::prelude::*;

    const SERVER_3_12: &str = r#"{"cpu_util_total":0.0283928166173958,"cpu_util_user":0,"cpu_util_system":0.028292841910996517,"sender_has_retransmits":18446744073709551615,"congestion_used":"bbr","streams":[{"id":1,"bytes":131072,"retransmits":18446744073709551615,"jitter":0,"errors":0,"packets":0,"start_time":0,"end_time":1.000226},{"id":3,"bytes":131072,"retransmits":18446744073709551615,"jitter":0,"errors":0,"packets":0,"start_time":0,"end_time":1.000227}]}"#;

    #[test]
    fn reads_3_12_unsigned_minus_one() {
        // reference/iperf3/hexdump_tcp.txt, server → client
        let v: Value = serde_json::from_str(SERVER_3_12).unwrap();
        let r = PeerResults::from_json(&v).unwrap();
        assert_eq!(r.sender_has_retransmits, -1);
        assert_eq!(r.streams.len(), 2);
        assert_eq!(r.streams[1].id, 3);
        assert_eq!(r.streams[1].retransmits, -1);
        assert_eq!(r.streams[0].bytes, 131072);
        assert_eq!(r.congestion_used.as_deref(), Some("bbr"));
    }

    #[test]
    fn writes_in_3_12_order() {
        let v: Value = serde_json::from_str(SERVER_3_12).unwrap();
        let r = PeerResults::from_json(&v).unwrap();
        let out = to_compact(&r.to_json());
        assert_eq!(out, SERVER_3_12.replace("18446744073709551615", "-1"));
        assert_eq!(PeerResults::from_json(&r.to_json()).unwrap(), r);
    }

    #[test]
    fn missing_keys_are_errors() {
        for bad in [
            r#"{}"#,
            r#"{"cpu_util_total":1,"cpu_util_user":1,"cpu_util_system":1,"sender_has_retransmits":0,"streams":[{"id":1}]}"#,
        ] {
            let v: Value = serde_json::from_str(bad).unwrap();
            assert!(PeerResults::from_json(&v).is_err());
        }
    }

    proptest! {
        #[test]
        fn never_panics(s in ".{0,300}") {
            if let Ok(v) = serde_json::from_str::<Value>(&s) {
                let _ = PeerResults::from_json(&v);
            }
        }
    }
}
