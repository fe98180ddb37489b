#!/usr/bin/env bash
# The time of a newcomer's first `make demo`: a fresh clone of this
# repository's HEAD, an empty Go build cache (the module cache stays as it
# is: modules are downloaded once per machine), wall and CPU seconds, and the
# load average before and after (the CPU seconds are the steady measure on a
# shared machine).
#
#   bench/cold_install.sh [DIR]      (default DIR: a new temporary directory)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$(mktemp -d)}
git clone -q "$repo" "$dir/clone"
export GOCACHE="$dir/gocache"
mkdir -p "$GOCACHE"
cd "$dir/clone"
echo "commit $(git rev-parse --short HEAD), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f "make demo: %e s wall, %U s user + %S s system CPU, %P of a core" make demo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
