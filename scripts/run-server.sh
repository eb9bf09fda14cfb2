#!/usr/bin/env bash
# Installs what is missing, builds, and starts verso in the foreground on
# defaults: 127.0.0.1:6379, data in ./data, forkless snapshots. Extra
# arguments go to the server (e.g. --port 7000 or a config file).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh"
cd "$top"
exec "$top/build/src/verso-server" --dir "$top/data" "$@"
