#!/bin/sh
# Regenerates ../dt-whitehole.trace.gz: NAS DT class A, White Hole graph
# (21 MPI processes: one source, 4 comparators, 16 sinks), simulated by
# SimGrid's SMPI on two clusters of 11 hosts (adonis, griffon) joined by
# one 125 MBps link, with SimGrid's platform and resource-utilization
# tracing. Processes are placed sequentially, adonis first, as in Schnorr,
# Legrand and Vincent's case study: ranks 0-10 on adonis, 11-20 on griffon.
# With "locality", their second deployment: each comparator runs in the
# cluster of its four sinks (ranks 0-2 and 5-12 on adonis, 3-4 and 13-20 on
# griffon), so that only two of the source's messages cross.
# Deterministic: the trace is the same on every run (see below).
# Needs Debian's libsimgrid-dev (smpicc, smpirun) and patch.
# Usage: sh dt_whitehole.sh [sequential|locality [OUT]]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
LAYOUT=${1:-sequential}
case $LAYOUT in
sequential) OUT=${2:-$HERE/../dt-whitehole.trace.gz} ;;
locality) OUT=${2:-$HERE/../dt-whitehole-locality.trace.gz} ;;
*) echo "usage: $0 [sequential|locality [OUT]]" >&2; exit 2 ;;
esac
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

python3 "$HERE/make_platform_flat.py" --hosts 11 --names adonis,griffon --nic 1.25GBps --switch 10GBps \
	--interconnect 125MBps --slow "" -o "$TMP/platform-dt.xml"
cmp -s "$TMP/platform-dt.xml" "$HERE/platform-dt.xml" || { echo "platform-dt.xml is stale" >&2; exit 1; }
if [ "$LAYOUT" = sequential ]; then
	for c in adonis griffon; do for i in 0 1 2 3 4 5 6 7 8 9 10; do echo "$c-$i"; done; done > "$TMP/hostfile"
else # line r is the host of rank r
	printf '%s\n' adonis-0 adonis-1 adonis-2 griffon-0 griffon-1 adonis-3 adonis-4 adonis-5 adonis-6 adonis-7 \
		adonis-8 adonis-9 adonis-10 griffon-2 griffon-3 griffon-4 griffon-5 griffon-6 griffon-7 griffon-8 griffon-9 \
		> "$TMP/hostfile"
fi

# The computation is counted, not timed: nas/dt-flops.patch charges each of
# DT's loops its operations on the simulated host (smpi_execute_flops) and
# the simulation does not time the code between MPI calls
# (smpi/simulate-computation:no), so the trace is the same on every run.
# DT's main returns 1, so smpirun's status is ignored and the benchmark's own
# verification is checked.
patch -s -o "$TMP/dt.c" "$HERE/nas/dt.c" "$HERE/nas/dt-flops.patch"
smpicc -O2 -I"$HERE/nas" -o "$TMP/dt" "$TMP/dt.c" "$HERE/nas/nas_common.c" "$HERE/nas/DGraph.c"
cd "$TMP" && smpirun -np 21 -platform "$HERE/platform-dt.xml" -hostfile "$TMP/hostfile" \
	--cfg=tracing:yes --cfg=tracing/platform:yes --cfg=tracing/uncategorized:yes \
	--cfg=tracing/filename:"$TMP/flat.trace" --cfg=smpi/simulate-computation:no \
	--log=root.thres:critical ./dt 21 A WH > "$TMP/out.txt" 2>&1 || true
grep -q "Verification    =               SUCCESSFUL" "$TMP/out.txt" || { cat "$TMP/out.txt" >&2; exit 1; }
python3 "$HERE/regroup_platform.py" "$TMP/flat.trace" "$TMP/dt.trace" adonis,griffon
gzip -9n < "$TMP/dt.trace" > "$OUT"
echo "wrote $OUT"
