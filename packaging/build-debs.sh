#!/bin/sh
# Build the release binaries (stripped: see [profile.release]) and one .deb
# per tool that has a [package.metadata.deb] table in its Cargo.toml, into
# target/debian/ (or $DEB_DIR).
#
# The table is cargo-deb's: `cargo deb -p rmbw` builds the same package.
# This script uses cargo-deb when it is installed; otherwise (CI: installing
# cargo-deb takes over 3 minutes) it stages the same assets itself, read from
# the same table with `cargo metadata` and jq, and builds with dpkg-deb.
# RBENCH_DEB_BUILDER=cargo-deb or =dpkg-deb forces one.
#
# Needs: cargo, jq, dpkg-deb, gzip; dpkg-shlibdeps (dpkg-dev) when present.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
deb_dir=${DEB_DIR:-$root/target/debian}
mkdir -p "$deb_dir"

meta=$(cargo metadata --format-version 1 --no-deps)
target_dir=$(printf '%s' "$meta" | jq -r '.target_directory')
pkgs=$(printf '%s' "$meta" | jq -r '.packages[] | select(.metadata.deb != null) | .name' | sort)
[ -n "$pkgs" ] || { echo "build-debs: no package has [package.metadata.deb]" >&2; exit 1; }

builder=${RBENCH_DEB_BUILDER:-auto}
if [ "$builder" = auto ]; then
    if cargo deb --version >/dev/null 2>&1; then builder=cargo-deb; else builder=dpkg-deb; fi
fi
echo "build-debs: $(echo $pkgs) with $builder" >&2

# shellcheck disable=SC2046 # one -p per package
cargo build --release --locked $(for p in $pkgs; do printf ' -p %s' "$p"; done)

arch=$(dpkg --print-architecture)
revision=1

# The Depends of a binary: dpkg-shlibdeps when installed (what cargo-deb's
# "$auto" uses), else the packages owning its NEEDED libraries, with libc6
# bounded by the newest GLIBC_ symbol version it uses.
shlib_depends() {
    bin=$1
    if command -v dpkg-shlibdeps >/dev/null 2>&1; then
        tmp=$(mktemp -d)
        mkdir "$tmp/debian" && : >"$tmp/debian/control"
        (cd "$tmp" && dpkg-shlibdeps -O "$bin" 2>/dev/null) | sed -n 's/^shlibs:Depends=//p'
        rm -rf "$tmp"
        return
    fi
    glibc=$(objdump -T "$bin" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -n 1)
    for lib in $(objdump -p "$bin" | awk '$1 == "NEEDED" { print $2 }'); do
        path=$(ldconfig -p | awk -v l="$lib" '$1 == l { print $NF; exit }')
        [ -n "$path" ] || continue
        dpkg -S "$path" 2>/dev/null | sed -n '1s/:.*//p'
    done | sort -u | while read -r p; do
        case $p in libc6) echo "libc6 (>= $glibc)" ;; *) echo "$p" ;; esac
    done | paste -sd, - | sed 's/,/, /g'
}

# Stage one package's tree from its metadata and build it with dpkg-deb.
build_with_dpkg_deb() {
    pkg=$1
    info=$(printf '%s' "$meta" | jq -c --arg p "$pkg" '.packages[] | select(.name == $p)')
    field() { printf '%s' "$info" | jq -r "$1"; }
    name=$(field '.metadata.deb.name // .name')
    version=$(field '.version')
    crate_dir=$(dirname "$(field '.manifest_path')")
    stage=$target_dir/debian-stage/$name
    rm -rf "$stage"
    mkdir -p "$stage/DEBIAN"

    # Assets: [source, destination, mode]; "target/release/" means the real
    # target directory; a destination ending in / keeps the file's name.
    printf '%s' "$info" | jq -r '.metadata.deb.assets[] | @tsv' |
        while IFS="$(printf '\t')" read -r src dest mode; do
            case $src in
                target/release/*) from=$target_dir/release/${src#target/release/} ;;
                *) from=$crate_dir/$src ;;
            esac
            case $dest in */) dest=$dest$(basename "$src") ;; esac
            mkdir -p "$stage/$(dirname "$dest")"
            install -m "$mode" "$from" "$stage/$dest"
            case $dest in
                usr/share/man/*) gzip -9n "$stage/$dest" ;; # Debian policy 12.1
            esac
        done

    doc=$stage/usr/share/doc/$name
    mkdir -p "$doc"
    {
        echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
        echo "Upstream-Name: $pkg"
        echo "Source: $(field '.repository // "rbench"')"
        echo
        echo "Files: *"
        echo "Copyright: $(field '.metadata.deb.maintainer' | sed 's/ *<.*//')"
        echo "License: $(field '.license')"
    } >"$doc/copyright"
    chmod 644 "$doc/copyright"

    depends=$(field '.metadata.deb.depends // "$auto"')
    if [ "$depends" = '$auto' ]; then
        bins=$(find "$stage/usr/bin" -type f)
        # shellcheck disable=SC2086
        depends=$(for b in $bins; do shlib_depends "$b"; done | paste -sd, - | sed 's/,\([^ ]\)/, \1/g')
    fi
    {
        echo "Package: $name"
        echo "Version: $version-$revision"
        echo "Architecture: $arch"
        echo "Maintainer: $(field '.metadata.deb.maintainer')"
        echo "Installed-Size: $(du -sk --apparent-size --exclude=DEBIAN "$stage" | cut -f1)"
        [ -z "$depends" ] || echo "Depends: $depends"
        echo "Section: $(field '.metadata.deb.section // "utils"')"
        echo "Priority: $(field '.metadata.deb.priority // "optional"')"
        echo "Description: $(field '.description')"
        # The long description: folded, one leading space per line.
        field '.metadata.deb["extended-description"] // ""' | fold -s -w 78 | sed 's/ *$//; s/^/ /'
    } >"$stage/DEBIAN/control"
    out=$deb_dir/${name}_${version}-${revision}_${arch}.deb
    dpkg-deb --root-owner-group -Zxz --build "$stage" "$out" >/dev/null
    echo "$out"
}

for pkg in $pkgs; do
    case $builder in
        cargo-deb) cargo deb -p "$pkg" --no-build --deb-revision "$revision" -o "$deb_dir" ;;
        dpkg-deb) build_with_dpkg_deb "$pkg" ;;
        *) echo "build-debs: RBENCH_DEB_BUILDER must be cargo-deb or dpkg-deb" >&2; exit 2 ;;
    esac
done
