//! The test parameters the client sends after PARAM_EXCHANGE (spec §2.5),
//! in the key order 3.12 uses. Decoding type-checks every key like 3.18+
//! (a key of the wrong type is ignored, CVE-2024-53580) and ignores unknown
//! keys, so newer clients (3.13–3.21) are understood.

use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Protocol {
    #[default]
    Tcp,
    Udp,
    Sctp,
}

/// Everything the client tells the server about the test.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TestParams {
    pub protocol: Protocol,
    pub omit: i64,
    pub server_affinity: Option<i64>,
    pub time: i64,
    pub num: u64,
    pub blockcount: u64,
    pub mss: i64,
    pub nodelay: bool,
    pub parallel: i64,
    pub reverse: bool,
    pub bidirectional: bool,
    pub window: i64,
    pub len: i64,
    pub bandwidth: u64,
    pub fqrate: u64,
    pub pacing_timer: i64,
    pub burst: i64,
    pub tos: i64,
    pub flowlabel: i64,
    pub title: Option<String>,
    pub extra_data: Option<String>,
    pub congestion: Option<String>,
    pub congestion_used: Option<String>,
    pub get_server_output: bool,
    pub udp_counters_64bit: bool,
    pub repeating_payload: bool,
    pub zerocopy: bool,
    pub dont_fragment: bool,
    pub authtoken: Option<String>,
    pub client_version: Option<String>,
}

/// An integer from a JSON number as iperf3 reads one: integers ≥ 2^63 are
/// read as their signed (two's complement) value, floats are truncated.
pub fn json_int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n
            .as_i64()
            .or_else(|| n.as_u64().map(|u| u as i64))
            .or_else(|| n.as_f64().map(|f| f as i64)),
        _ => None,
    }
}

impl TestParams {
    /// The parameter object, keys in 3.12's order.
    pub fn to_json(&self) -> Value {
        let mut j = Map::new();
        let t = Value::Bool(true);
        match self.protocol {
            Protocol::Tcp => j.insert("tcp".into(), t.clone()),
            Protocol::Udp => j.insert("udp".into(), t.clone()),
            Protocol::Sctp => j.insert("sctp".into(), t.clone()),
        };
        j.insert("omit".into(), self.omit.into());
        if let Some(a) = self.server_affinity {
            j.insert("server_affinity".into(), a.into());
        }
        j.insert("time".into(), self.time.into());
        j.insert("num".into(), self.num.into());
        j.insert("blockcount".into(), self.blockcount.into());
        if self.mss != 0 {
            j.insert("MSS".into(), self.mss.into());
        }
        if self.nodelay {
            j.insert("nodelay".into(), t.clone());
        }
        j.insert("parallel".into(), self.parallel.into());
        if self.reverse {
            j.insert("reverse".into(), t.clone());
        }
        if self.bidirectional {
            j.insert("bidirectional".into(), t.clone());
        }
        if self.window != 0 {
            j.insert("window".into(), self.window.into());
        }
        if self.len != 0 {
            j.insert("len".into(), self.len.into());
        }
        if self.bandwidth != 0 {
            j.insert("bandwidth".into(), self.bandwidth.into());
        }
        if self.fqrate != 0 {
            j.insert("fqrate".into(), self.fqrate.into());
        }
        if self.pacing_timer != 0 {
            j.insert("pacing_timer".into(), self.pacing_timer.into());
        }
        if self.burst != 0 {
            j.insert("burst".into(), self.burst.into());
        }
        if self.tos != 0 {
            j.insert("TOS".into(), self.tos.into());
        }
        if self.flowlabel != 0 {
            j.insert("flowlabel".into(), self.flowlabel.into());
        }
        for (k, v) in [
            ("title", &self.title),
            ("extra_data", &self.extra_data),
            ("congestion", &self.congestion),
            ("congestion_used", &self.congestion_used),
        ] {
            if let Some(s) = v {
                j.insert(k.into(), s.clone().into());
            }
        }
        for (k, on) in [
            ("get_server_output", self.get_server_output),
            ("udp_counters_64bit", self.udp_counters_64bit),
            ("repeating_payload", self.repeating_payload),
            ("zerocopy", self.zerocopy),
            ("dont_fragment", self.dont_fragment),
        ] {
            if on {
                j.insert(k.into(), 1.into());
            }
        }
        if let Some(a) = &self.authtoken {
            j.insert("authtoken".into(), a.clone().into());
        }
        j.insert(
            "client_version".into(),
            self.client_version
                .clone()
                .unwrap_or_else(|| "3.12".into())
                .into(),
        );
        Value::Object(j)
    }

    /// Read parameters from a JSON object; missing or mistyped keys keep
    /// their defaults. Range checks are the server's job.
    pub fn from_json(v: &Value) -> TestParams {
        let mut p = TestParams::default();
        let Some(m) = v.as_object() else { return p };
        let int = |k: &str| m.get(k).and_then(json_int);
        let string = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
        // Flags: 3.12 tests presence; later versions send `true` or 1.
        let flag = |k: &str| {
            m.get(k).is_some_and(|v| {
                !matches!(v, Value::Bool(false) | Value::Null) && json_int(v) != Some(0)
            })
        };
        if m.contains_key("tcp") {
            p.protocol = Protocol::Tcp;
        }
        if m.contains_key("udp") {
            p.protocol = Protocol::Udp;
        }
        if m.contains_key("sctp") {
            p.protocol = Protocol::Sctp;
        }
        p.omit = int("omit").unwrap_or(0);
        p.server_affinity = int("server_affinity");
        p.time = int("time").unwrap_or(0);
        p.num = int("num").unwrap_or(0).max(0) as u64;
        p.blockcount = int("blockcount").unwrap_or(0).max(0) as u64;
        p.mss = int("MSS").unwrap_or(0);
        p.nodelay = flag("nodelay");
        p.parallel = int("parallel").unwrap_or(1);
        p.reverse = flag("reverse");
        p.bidirectional = flag("bidirectional");
        p.window = int("window").unwrap_or(0);
        p.len = int("len").unwrap_or(0);
        p.bandwidth = int("bandwidth").unwrap_or(0).max(0) as u64;
        p.fqrate = int("fqrate").unwrap_or(0).max(0) as u64;
        p.pacing_timer = int("pacing_timer").unwrap_or(0);
        p.burst = int("burst").unwrap_or(0);
        p.tos = int("TOS").unwrap_or(0);
        p.flowlabel = int("flowlabel").unwrap_or(0);
        p.title = string("title");
        p.extra_data = string("extra_data");
        p.congestion = string("congestion");
        p.congestion_used = string("congestion_used");
        p.get_server_output = flag("get_server_output");
        p.udp_counters_64bit = flag("udp_counters_64bit");
        p.repeating_payload = flag("repeating_payload");
        p.zerocopy = flag("zerocopy");
        p.dont_fragment = flag("dont_fragment");
        p.authtoken = string("authtoken");
        p.client_version = string("client_version");
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::cjson::to_compact;
    use proptest::prelude::*;

    #[test]
    fn encodes_like_3_12() {
        // reference/iperf3/hexdump_tcp.txt
        let p = TestParams {
            protocol: Protocol::Tcp,
            time: 1,
            parallel: 2,
            len: 131072,
            bandwidth: 1_000_000,
            pacing_timer: 1000,
            ..Default::default()
        };
        assert_eq!(
            to_compact(&p.to_json()),
            r#"{"tcp":true,"omit":0,"time":1,"num":0,"blockcount":0,"parallel":2,"len":131072,"bandwidth":1000000,"pacing_timer":1000,"client_version":"3.12"}"#
        );
        // reference/iperf3/hexdump_errors.txt (client C)
        let p = TestParams {
            time: 1,
            parallel: 1,
            window: 104857600,
            len: 131072,
            pacing_timer: 1000,
            ..Default::default()
        };
        assert_eq!(
            to_compact(&p.to_json()),
            r#"{"tcp":true,"omit":0,"time":1,"num":0,"blockcount":0,"parallel":1,"window":104857600,"len":131072,"pacing_timer":1000,"client_version":"3.12"}"#
        );
    }

    #[test]
    fn decode_round_trips_and_tolerates() {
        let p = TestParams {
            protocol: Protocol::Udp,
            time: 3,
            parallel: 4,
            reverse: true,
            len: 1000,
            bandwidth: 1048576,
            pacing_timer: 1000,
            title: Some("t".into()),
            udp_counters_64bit: true,
            get_server_output: true,
            client_version: Some("3.12".into()),
            ..Default::default()
        };
        assert_eq!(TestParams::from_json(&p.to_json()), p);
        // Wrong types are ignored (3.18+), unknown keys too (3.19+ mptcp, gso).
        let v: Value = serde_json::from_str(
            r#"{"tcp":true,"time":"ten","parallel":[1],"title":5,"mptcp":true,"gso":1,"len":18446744073709551615}"#,
        )
        .unwrap();
        let q = TestParams::from_json(&v);
        assert_eq!(q.time, 0);
        assert_eq!(q.parallel, 1);
        assert_eq!(q.title, None);
        assert_eq!(q.len, -1);
    }

    proptest! {
        #[test]
        fn never_panics(s in ".{0,200}") {
            if let Ok(v) = serde_json::from_str::<Value>(&s) {
                let _ = TestParams::from_json(&v);
            }
        }
    }
}
