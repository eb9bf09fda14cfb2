#!/usr/bin/env bash
# Lays out the patched sources of verso's Lua in a build directory (make
# runs it, Makefile.am's "Lua" part): Lua 5.1.5 and lua-cjson 2.1.0 from
# the tarballs scripts/fetch-lua.sh keeps in the cache (fetched first if
# missing), Debian's patch that matters for an embedded interpreter
# (0004, the stack overflow in vararg functions, CVE-2014-5461), then
# verso's own patches in deps/lua/patches: NNNN-lua-*.patch apply to
# lua-5.1.5, NNNN-cjson-*.patch to lua-cjson, in file name order.
#
# Usage: deps/lua/prepare.sh TOP_SRCDIR OUT_DIR
# Writes OUT_DIR/lua-5.1.5, OUT_DIR/lua-cjson-2.1.0+dfsg and, last,
# OUT_DIR/.prepared. The files are replaced in place (the build's
# dependency files next to them stay).
set -euo pipefail
top=$1
out=$2
cache=$("$top/scripts/fetch-lua.sh")
patches=$top/deps/lua/patches
debian_patches="0004-Fix-stack-overflow-in-vararg-functions.patch"

mkdir -p "$out"
tmp=$(mktemp -d "$out/.prepare.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

tar -xzf "$cache/lua5.1_5.1.5.orig.tar.gz" -C "$tmp"
tar -xJf "$cache/lua5.1_5.1.5-9.debian.tar.xz" -C "$tmp"
tar -xzf "$cache/lua-cjson_2.1.0+dfsg.orig.tar.gz" -C "$tmp"

apply() { # dir patch
    if ! patch -d "$1" -p1 --quiet --forward --no-backup-if-mismatch < "$2"; then
        echo "prepare: $(basename "$2") does not apply to $(basename "$1")" >&2
        exit 1
    fi
}
for p in $debian_patches; do apply "$tmp/lua-5.1.5" "$tmp/debian/patches/$p"; done
for p in "$patches"/*-lua-*.patch; do apply "$tmp/lua-5.1.5" "$p"; done
for p in "$patches"/*-cjson-*.patch; do apply "$tmp/lua-cjson-2.1.0+dfsg" "$p"; done

for d in lua-5.1.5 lua-cjson-2.1.0+dfsg; do
    mkdir -p "$out/$d"
    cp -R "$tmp/$d/." "$out/$d/"
done
touch "$out/.prepared"
