#!/usr/bin/env bash
# Installs the Debian packages in scripts/packages that are missing, fetches
# Lua's sources (scripts/fetch-lua.sh), installs BullMQ for test_bullmq
# (npm ci in tests/apps/bullmq), then configures and builds verso out
# of tree in ./build (or in $BUILD_DIR with
# the extra configure flags in $CONFIGURE_FLAGS). Idempotent: a second run
# only rebuilds what changed.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

# A package counts as there when it is installed or an installed package
# provides it (NodeSource's nodejs provides npm, and conflicts with Debian's).
provided=" $(dpkg-query -W -f='${db:Status-Abbrev}|${Provides}\n' 2>/dev/null |
    sed -n 's/^ii *|//p' | tr ',' '\n' | sed 's/([^)]*)//; s/^ *//; s/ *$//' | tr '\n' ' ') "
missing=()
while read -r pkg; do
    case "$pkg" in ''|'#'*) continue ;; esac
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
        case "$provided" in *" $pkg "*) ;; *) missing+=("$pkg") ;; esac
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

# BullMQ and its dependencies, exactly as tests/apps/bullmq/package-lock.json
# pins them, from the npm registry into tests/apps/bullmq/node_modules (git
# ignores it; every build directory shares it). Again only when the lock
# file changed: the stamp holds the checksum of the one installed. No
# optional packages (msgpackr's native extension) and no install scripts:
# nothing is compiled or fetched from elsewhere.
app="$top/tests/apps/bullmq"
lock_sum=$(sha256sum "$app/package-lock.json" | cut -d' ' -f1)
if [ "$(cat "$app/node_modules/.verso-lock-sha256" 2>/dev/null)" != "$lock_sum" ]; then
    echo "setup: npm ci in tests/apps/bullmq"
    (cd "$app" && npm ci --omit=optional --ignore-scripts --no-audit --no-fund \
        --no-update-notifier --loglevel=error >/dev/null)
    echo "$lock_sum" > "$app/node_modules/.verso-lock-sha256"
fi

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
