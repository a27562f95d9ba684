//! mbw's `-h` usage text and rmbw's `--help`, both rendered from the table.

use super::table::OPTIONS;

/// The version line `--version` prints first.
pub fn version_line() -> String {
    format!("rmbw {} (mbw 1.2.2 compatible)", env!("CARGO_PKG_VERSION"))
}

/// mbw 1.2.2's `-h` text, line for line (spec §4), with our program name.
pub fn usage(prog_name: &str) -> String {
    let mut s = format!("Usage: {prog_name} [options] array_size_in_MiB\nOptions:\n");
    for line in OPTIONS.iter().flat_map(|o| o.mbw_usage) {
        s.push('\t');
        s.push_str(line);
        s.push('\n');
    }
    s.push_str("(will then use two arrays, watch out for swapping)\n");
    s.push_str("'Bandwidth' is amount of data copied over the time this operation took.\n");
    s.push_str("\nThe default is to run all tests available.\n");
    s
}

/// Wrap `text` to `width` columns, each line prefixed with `indent`.
fn wrap(text: &str, indent: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && indent.len() + line.len() + 1 + word.len() > width {
            out.push_str(indent);
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(indent);
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// `--help`: every option that is not hidden, with default and meaning.
pub fn long_help() -> String {
    let mut s = format!(
        "{}\nMeasure memory copy bandwidth; a drop-in replacement for mbw 1.2.2.\n\n\
         Usage: rmbw [options] array_size_in_MiB\n\n\
         The array size is in MiB of one array (two arrays are allocated, three for the\n\
         STREAM kernels add and triad). Short options are mbw's; long options are rmbw's.\n\n\
         Options:\n",
        version_line()
    );
    for o in OPTIONS.iter().filter(|o| !o.hidden) {
        let mut head = format!("  {}", o.synopsis());
        if let Some(d) = o.default {
            head.push_str(&format!("  (default: {d})"));
        }
        s.push_str(&head);
        s.push('\n');
        s.push_str(&wrap(o.help, "      ", 78));
    }
    s.push_str(
        "\nLabels mean what they say: MEMCPY is one memcpy() of the whole array, DUMB\n\
         the element loop. mbw 1.2.2 prints them the other way round; compare our\n\
         MEMCPY with its DUMB line and our DUMB with its MEMCPY line. See rmbw(1).\n",
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_is_mbws_text() {
        let expected = "Usage: mbw [options] array_size_in_MiB\nOptions:\n\
            \t-n: number of runs per test\n\t-a: Don't display average\n\
            \t-t0: memcpy test\n\t-t1: dumb (b[i]=a[i] style) test\n\
            \t-t2 : memcpy test with fixed block size\n\
            \t-b <size>: block size in bytes for -t2 (default: 262144)\n\
            \t-q: quiet (print statistics only)\n\
            (will then use two arrays, watch out for swapping)\n\
            'Bandwidth' is amount of data copied over the time this operation took.\n\
            \nThe default is to run all tests available.\n";
        assert_eq!(usage("mbw"), expected);
    }

    #[test]
    fn help_lists_every_visible_option() {
        let h = long_help();
        for o in OPTIONS.iter().filter(|o| !o.hidden) {
            assert!(h.contains(&o.synopsis()), "{}", o.synopsis());
        }
        assert!(!h.contains("generate-man"));
        assert!(h.lines().all(|l| l.len() <= 80), "{h}");
    }
}
