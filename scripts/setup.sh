#!/usr/bin/env bash
# Installs the Debian packages in scripts/packages that are missing, fetches
# Lua's sources (scripts/fetch-lua.sh), then configures and builds verso out
# of tree in ./build (or in $BUILD_DIR with
# the extra configure flags in $CONFIGURE_FLAGS). Idempotent: a second run
# only rebuilds what changed.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

missing=()
while read -r pkg; do
    case "$pkg" in ''|'#'*) continue ;; esac
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
        || missing+=("$pkg")
done < scripts/packages
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Lua's sources (scripts/fetch-lua.sh): fetched once into deps/cache, which
# every build directory shares; the build patches and compiles them.
"$top/scripts/fetch-lua.sh" >/dev/null

build=${BUILD_DIR:-build}
[ -x configure ] && [ configure -nt configure.ac ] && [ Makefile.in -nt Makefile.am ] \
    || autoreconf -fi >/dev/null
mkdir -p "$build"
# Reconfigure when the flags differ from the last configure's (.configure-flags).
if [ ! -f "$build/Makefile" ] || [ configure -nt "$build/config.status" ] ||
   [ "$(cat "$build/.configure-flags" 2>/dev/null)" != "${CONFIGURE_FLAGS:-}" ]; then
    (cd "$build" && "$top/configure" ${CONFIGURE_FLAGS:-} >/dev/null)
    printf '%s\n' "${CONFIGURE_FLAGS:-}" > "$build/.configure-flags"
fi
make -C "$build" -j"$(nproc)" >/dev/null
echo "setup: built $build/src/verso-server"
