#!/bin/sh
# Install the .deb files build-debs.sh made (target/debian/, or the files
# given as arguments) with dpkg, as root, and check each installed tool from
# /usr/bin: `--version`, `man -w`, the completion files, and a short run.
# The packages stay installed (this is for CI machines and throw-away
# containers); `dpkg -r rbench-<tool>` removes them.
set -eu
cd "$(dirname "$0")/.."

if [ $# -eq 0 ]; then
    version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
    set -- target/debian/rbench-*_"$version"-*_"$(dpkg --print-architecture)".deb
fi
[ -f "$1" ] || { echo "check-debs: no .deb found: run packaging/build-debs.sh first" >&2; exit 1; }

fail() { echo "check-debs: FAIL: $*" >&2; exit 1; }

# The first line `--version` must print (the original's shape).
version_shape() {
    case $1 in
        rmbw) echo 'rmbw [0-9]*.[0-9]*.[0-9]* (mbw 1.2.2 compatible)' ;;
        rsysbench) echo 'sysbench 1.0.20' ;;
        riperf) echo 'iperf 3.12 (riperf [0-9]*, rbench)' ;;
        rfio) echo 'fio-3.33' ;;
        *) echo '*' ;;
    esac
}

# A run of a second or so; prints what it printed, fails on a non-zero exit.
short_run() {
    tool=$1
    work=$(mktemp -d)
    case $tool in
        rmbw) (cd "$work" && timeout 60 /usr/bin/rmbw -q -n 1 -t0 64) ;;
        rsysbench) (cd "$work" && timeout 60 /usr/bin/rsysbench cpu --time=1 --cpu-max-prime=2000 run) ;;
        rfio) (cd "$work" && timeout 60 /usr/bin/rfio --name=check --ioengine=null --size=1m --rw=read) ;;
        riperf)
            port=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 20000))
            timeout 30 /usr/bin/riperf -s -1 -p "$port" >/dev/null 2>&1 &
            server=$!
            sleep 1
            timeout 30 /usr/bin/riperf -c 127.0.0.1 -p "$port" -t 1
            rc=$?
            wait "$server" || true
            [ "$rc" -eq 0 ]
            ;;
        *) echo "no short run defined for $tool in check-debs.sh" >&2; false ;;
    esac
    rc=$?
    rm -rf "$work"
    return $rc
}

export DEBIAN_FRONTEND=noninteractive
for deb in "$@"; do
    pkg=$(dpkg-deb -f "$deb" Package)
    echo "== $pkg ($deb, $(du -k "$deb" | cut -f1) KiB)"
    dpkg-deb -f "$deb" Conflicts Replaces Provides | grep . && fail "$pkg declares Conflicts/Replaces/Provides"
    dpkg -i "$deb" >/dev/null || fail "dpkg -i $deb"
    tools=$(dpkg -L "$pkg" | sed -n 's|^/usr/bin/||p')
    [ -n "$tools" ] || fail "$pkg installs nothing in /usr/bin"
    for tool in $tools; do
        [ "$(command -v "$tool")" = "/usr/bin/$tool" ] || fail "$tool is not found as /usr/bin/$tool"
        first=$("/usr/bin/$tool" --version | sed -n 1p)
        # shellcheck disable=SC2254 # the shape is a pattern
        case $first in $(version_shape "$tool")) ;; *) fail "$tool --version: '$first'" ;; esac
        echo "$tool --version: $first"
        man_page=/usr/share/man/man1/$tool.1.gz
        [ -f "$man_page" ] || fail "$man_page missing (a dpkg path-exclude for /usr/share/man?)"
        if command -v man >/dev/null 2>&1; then
            [ "$(man -w "$tool")" = "$man_page" ] || fail "man -w $tool: '$(man -w "$tool")'"
            echo "man -w $tool: $man_page"
        else
            echo "man is not installed: checked $man_page only"
        fi
        for f in /usr/share/bash-completion/completions/$tool \
            /usr/share/zsh/vendor-completions/_$tool \
            /usr/share/fish/vendor_completions.d/$tool.fish; do
            [ -f "$f" ] || fail "$f missing"
        done
        bash -c ". /usr/share/bash-completion/completions/$tool && complete -p $tool" >/dev/null ||
            fail "the bash completion of $tool does not load"
        echo "completions: bash, zsh, fish in place"
        out=$(short_run "$tool") || fail "short run of /usr/bin/$tool:
$out"
        echo "short run of /usr/bin/$tool: ok, $(printf '%s\n' "$out" | wc -l) lines"
    done
done
echo "check-debs: all packages installed and checked"
