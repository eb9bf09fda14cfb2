#!/usr/bin/env bash
# Fetches the sources of the Lua that verso links (see DEVELOPERS.md,
# "Lua"): Debian 12's lua5.1 5.1.5-9 (upstream tarball and Debian's
# patches) and lua-cjson 2.1.0+dfsg-2.2 (upstream tarball), from Debian's
# archive by exact file name, each checked against the SHA-256 pinned
# here (the ones bookworm's Sources index lists). Files already in the
# cache with the right checksum are not fetched again, so the normal,
# ASan and TSan builds and every later build share one download.
#
# Usage: scripts/fetch-lua.sh [CACHE_DIR]
#   CACHE_DIR: $VERSO_DEPS_CACHE, else deps/cache in the source tree
#   (ignored by git). Prints the cache directory on success.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${1:-${VERSO_DEPS_CACHE:-$top/deps/cache}}
pool=http://deb.debian.org/debian/pool/main/l

# file name, directory in the pool, SHA-256
files=(
    "lua5.1_5.1.5.orig.tar.gz lua5.1 2640fc56a795f29d28ef15e13c34a47e223960b0240e8cb0a82d9b0738695333"
    "lua5.1_5.1.5-9.debian.tar.xz lua5.1 c39fc17b2ce09aa17771af49b9f40465a2458913ff2e25ff967fe32aada0737f"
    "lua-cjson_2.1.0+dfsg.orig.tar.gz lua-cjson 94f1fce36742cf00e99c5071b309b9f71e6e7daf60a7151f7bf4ac0a97259ac4"
)

sha_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

mkdir -p "$cache"
for entry in "${files[@]}"; do
    read -r name dir sum <<<"$entry"
    dest=$cache/$name
    sha_ok "$dest" "$sum" && continue
    echo "fetch-lua: $pool/$dir/$name" >&2
    tmp=$(mktemp "$cache/.$name.XXXXXX")
    if ! curl -fsSL --retry 3 -o "$tmp" "$pool/$dir/$name"; then
        rm -f "$tmp"
        echo "fetch-lua: cannot download $name" >&2
        exit 1
    fi
    if ! sha_ok "$tmp" "$sum"; then
        echo "fetch-lua: $name: SHA-256 $(sha256sum "$tmp" | cut -d' ' -f1), expected $sum" >&2
        rm -f "$tmp"
        exit 1
    fi
    mv -f "$tmp" "$dest"
done
echo "$cache"
