#!/bin/sh
# Regenerates ../scaling/solver-{2,4,8,16}.trace.gz: a strong-scaling study
# of one program (scaling.c) run by SimGrid's SMPI at 2, 4, 8 and 16 ranks
# on the hosts alpha-0.. of make_platform_flat.py's platform (1 Gflop/s
# each; ranks placed by the hostfile, so the first 16 share a group).
# Computation is simulated (smpi_execute_flops, simulate-computation off),
# so the runs are deterministic. regroup.py puts each rank under its host
# and zone and adds the Compute state; the messages (links) are kept, for
# the ideal replay of the POP efficiencies. Needs Debian's libsimgrid-dev.
# Usage: sh scaling.sh [OUTDIR]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../scaling}
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
smpicc -O2 -o "$TMP/solver" "$HERE/scaling.c"
python3 "$HERE/make_platform_flat.py" --slow "" -o "$TMP/platform.xml"
for n in 2 4 8 16; do
	(cd "$TMP" && smpirun -np "$n" -platform "$TMP/platform.xml" -hostfile "$HERE/hostfile" -trace \
		-trace-file "$TMP/flat-$n.trace" --cfg=smpi/simulate-computation:no --log=root.thres:warning ./solver)
	python3 "$HERE/regroup.py" "$TMP/flat-$n.trace" "$HERE/hostfile" "$TMP/solver-$n.trace"
	gzip -9n < "$TMP/solver-$n.trace" > "$OUT/solver-$n.trace.gz"
	echo "wrote $OUT/solver-$n.trace.gz"
done
