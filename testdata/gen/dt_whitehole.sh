#!/bin/sh
# Regenerates ../dt-whitehole.trace.gz: NAS DT class A, White Hole graph
# (21 MPI processes: one source, 4 comparators, 16 sinks), simulated by
# SimGrid's SMPI on two clusters of 11 hosts (adonis, griffon) joined by
# one 125 MBps link, with SimGrid's platform and resource-utilization
# tracing. Processes are placed sequentially, adonis first, as in Schnorr,
# Legrand and Vincent's case study: ranks 0-10 on adonis, 11-20 on griffon.
# Needs Debian's libsimgrid-dev (smpicc, smpirun). Usage: sh dt_whitehole.sh
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../dt-whitehole.trace.gz}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

python3 "$HERE/make_platform_flat.py" --hosts 11 --names adonis,griffon --nic 1.25GBps --switch 10GBps \
	--interconnect 125MBps --slow "" -o "$TMP/platform-dt.xml"
cmp -s "$TMP/platform-dt.xml" "$HERE/platform-dt.xml" || { echo "platform-dt.xml is stale" >&2; exit 1; }
for c in adonis griffon; do for i in 0 1 2 3 4 5 6 7 8 9 10; do echo "$c-$i"; done; done > "$TMP/hostfile"

smpicc -O2 -o "$TMP/dt" "$HERE/nas/dt.c" "$HERE/nas/nas_common.c" "$HERE/nas/DGraph.c"
# The computation is the program's own, timed on this machine and replayed on
# the 1 Gflop/s hosts as if this machine ran at 1 Gflop/s (smpi/host-speed),
# so the hosts' speed_used shows when they compute; timings vary a little
# from run to run. DT's main returns 1, so smpirun's status is ignored and
# the benchmark's own verification is checked.
cd "$TMP" && smpirun -np 21 -platform "$HERE/platform-dt.xml" -hostfile "$TMP/hostfile" \
	--cfg=tracing:yes --cfg=tracing/platform:yes --cfg=tracing/uncategorized:yes \
	--cfg=tracing/filename:"$TMP/flat.trace" --cfg=smpi/host-speed:1Gf \
	--log=root.thres:critical ./dt 21 A WH > "$TMP/out.txt" 2>&1 || true
grep -q "Verification    =               SUCCESSFUL" "$TMP/out.txt" || { cat "$TMP/out.txt" >&2; exit 1; }
python3 "$HERE/regroup_platform.py" "$TMP/flat.trace" "$TMP/dt.trace" adonis,griffon
gzip -9n < "$TMP/dt.trace" > "$OUT"
echo "wrote $OUT"
