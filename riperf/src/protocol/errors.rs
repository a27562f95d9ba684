//! iperf3's error numbers (`i_errno`) as they travel in SERVER_ERROR
//! (spec §2.7), and the messages a 3.12 peer prints for them.

/// The codes riperf sends or must understand.
pub mod code {
    pub const IESETBUF2: i32 = 141;
    pub const IEAUTHTEST: i32 = 142;
    pub const IETOTALRATE: i32 = 27;
    pub const IERECVPARAMS: i32 = 114;
    pub const IEMESSAGE: i32 = 110;
    pub const IECTRLCLOSE: i32 = 109;
    pub const IESTREAMLISTEN: i32 = 202;
    pub const IESTREAMACCEPT: i32 = 204;
    pub const IENUMSTREAMS: i32 = 6;
    pub const IEBLOCKSIZE: i32 = 7;
    pub const IEUDPBLOCKSIZE: i32 = 20;
    pub const IESETCONGESTION: i32 = 134;
}

/// The message for `i_errno`, and whether iperf3 appends `: strerror(errno)`.
pub fn message(i_errno: i32) -> (String, bool) {
    let (m, perr): (&str, bool) = match i_errno {
        5 => ("test duration too long (maximum = 86400 seconds)", false),
        6 => ("number of parallel streams too large (maximum = 128)", false),
        7 => ("block size too large (maximum = 1048576 bytes)", false),
        8 => ("socket buffer size too large (maximum = 536870912 bytes)", false),
        12 => ("bogus value for --omit", false),
        15 => ("invalid burst count (maximum = 1000)", false),
        20 => (
            "block size invalid (minimum = 16 bytes, maximum = 65507 bytes)",
            false,
        ),
        27 => (
            "total required bandwidth is larger than server limit",
            false,
        ),
        101 => ("test initialization failed", true),
        102 => ("unable to start listener for connections", true),
        103 => ("unable to connect to server", true),
        104 => ("unable to accept connection from client", true),
        108 => ("unable to read from the control socket", true),
        109 => ("control socket has closed unexpectedly", false),
        110 => ("received an unknown control message", false),
        112 => ("unable to receive control message", true),
        114 => ("unable to receive parameters from client", true),
        116 => ("unable to send results", true),
        117 => ("unable to receive results", true),
        119 => ("the client has terminated", false),
        120 => ("the server has terminated", false),
        121 => ("the server is busy running a test. try again later", false),
        122 => ("unable to set TCP/SCTP NODELAY", true),
        123 => ("unable to set TCP/SCTP MSS", true),
        124 => ("unable to set socket buffer size", true),
        125 => ("unable to set IP TOS", true),
        127 => ("unable to set IPv6 flow label", false),
        132 => ("unable to set CPU affinity", true),
        134 => ("unable to set TCP_CONGESTION: Supplied congestion control algorithm not supported on this host", false),
        140 => ("unable to set socket pacing", true),
        141 => ("socket buffer size not set correctly", false),
        142 => ("test authorization failed", false),
        143 => ("Unable to bind-to-device (check perror, maybe permissions?)", true),
        144 => ("idle timeout for receiving data", false),
        145 => ("unable to set IP Do-Not-Fragment flag", false),
        148 => ("unable to set TCP USER_TIMEOUT", true),
        200 => ("unable to create a new stream", true),
        201 => ("unable to initialize stream", true),
        131 => ("protocol does not exist", false),
        202 => ("unable to start stream listener", true),
        203 => ("unable to connect stream", true),
        204 => ("unable to accept stream connection", true),
        205 => ("unable to write to stream socket", true),
        206 => ("unable to read from stream socket", true),
        207 => ("stream socket has closed unexpectedly", false),
        208 => ("stream has an invalid id", false),
        other => return (format!("int_errno={other}"), true),
    };
    (m.to_string(), perr)
}

/// The full text a 3.12 client prints for a SERVER_ERROR it received.
pub fn server_error_text(i_errno: i32, errno: i32) -> String {
    let (mut m, perr) = message(i_errno);
    if perr && errno != 0 {
        m.push_str(": ");
        m.push_str(&std::io::Error::from_raw_os_error(errno).to_string_c());
    }
    m
}

/// `strerror` text without Rust's " (os error N)" suffix.
pub trait StrError {
    fn to_string_c(&self) -> String;
}

impl StrError for std::io::Error {
    fn to_string_c(&self) -> String {
        // std's connect_timeout reports its own "timed out", not ETIMEDOUT.
        if self.raw_os_error().is_none() && self.kind() == std::io::ErrorKind::TimedOut {
            return "Connection timed out".into();
        }
        let s = self.to_string();
        let s = match s.rfind(" (os error ") {
            Some(i) => s[..i].to_string(),
            None => s,
        };
        // Name resolution errors: gai_strerror's text alone, as iperf3.
        match s.strip_prefix("failed to lookup address information: ") {
            Some(rest) => rest.to_string(),
            None => s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_and_unknown_codes() {
        assert_eq!(
            server_error_text(141, 9),
            "socket buffer size not set correctly"
        );
        assert_eq!(
            server_error_text(202, 98),
            "unable to start stream listener: Address already in use"
        );
        assert_eq!(message(9999).0, "int_errno=9999");
    }

    #[test]
    fn timeouts_read_as_strerror() {
        // std's connect_timeout error carries no errno; iperf3 prints ETIMEDOUT's text.
        let e = std::io::Error::new(std::io::ErrorKind::TimedOut, "connection timed out");
        assert_eq!(e.to_string_c(), "Connection timed out");
        let e = std::io::Error::from_raw_os_error(libc::ETIMEDOUT);
        assert_eq!(e.to_string_c(), "Connection timed out");
    }
}
