#!/bin/sh
# Regenerates ../compare/jacobi32-steady.trace.gz and
# ../compare/jacobi32-alpha10.trace.gz: the bundled Jacobi solver (jacobi.c)
# on 32 SMPI ranks over two groups of 16 hosts (make_platform_flat.py, every
# host at 1 Gflop/s), run twice: as it is, and with host alpha-10 (rank 10)
# at half its speed from 5.5 s to 6.5 s of simulated time (after the checkpoint of iterations 20-29, on a rank that takes no part in it) (a SimGrid speed
# profile). A pair whose difference is known: one resource, one time
# range. Computation is simulated (smpi_execute_flops, simulate-computation
# off), so the runs are deterministic; regroup.py puts each rank under its
# host and zone and adds the Compute state, without the messages (links).
# Needs Debian's libsimgrid-dev. Usage: sh jacobi_perturb.sh [OUTDIR]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../compare}
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
smpicc -O2 -o "$TMP/jacobi" "$HERE/jacobi.c"
python3 "$HERE/make_platform_flat.py" --slow "" -o "$TMP/steady.xml"
python3 "$HERE/make_platform_flat.py" --slow "" --perturb alpha-10:5.5:6.5:0.5 -o "$TMP/alpha10.xml"
for v in steady alpha10; do
	(cd "$TMP" && smpirun -np 32 -platform "$TMP/$v.xml" -hostfile "$HERE/hostfile" -trace \
		-trace-file "$TMP/$v-flat.trace" --cfg=smpi/simulate-computation:no --log=root.thres:warning ./jacobi)
	python3 "$HERE/regroup.py" "$TMP/$v-flat.trace" "$HERE/hostfile" "$TMP/$v.trace" --no-links
	gzip -9n < "$TMP/$v.trace" > "$OUT/jacobi32-$v.trace.gz"
	echo "wrote $OUT/jacobi32-$v.trace.gz"
done
