#!/bin/sh
# Regenerates ../moments-imbalance.trace.gz, ../moments-late.trace.gz,
# ../moments-tail.trace.gz and ../moments-skew.trace.gz: patterns.c on 16
# ranks (hosts alpha-0..15 of platform.xml, 1 Gflop/s), traced by SMPI with
# its computations as "computing" states and its sleeps as "sleeping"
# states. The work is given in flops and computation is not timed on this
# machine (smpi/simulate-computation:no), so the traces are the same on
# every run.
# Needs Debian's libsimgrid-dev (smpicc, smpirun). Usage: sh moments_patterns.sh [OUTDIR]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/..}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
smpicc -O2 -o "$TMP/patterns" "$HERE/patterns.c"
head -16 "$HERE/hostfile" > "$TMP/hostfile"
for p in imbalance late tail skew; do
	(cd "$TMP" && smpirun -np 16 -platform "$HERE/platform.xml" -hostfile "$TMP/hostfile" \
		-trace -trace-file "$TMP/$p.trace" --cfg=tracing/smpi/computing:yes --cfg=tracing/smpi/sleeping:yes \
		--cfg=smpi/simulate-computation:no --log=root.thres:warning ./patterns $p)
	grep -v '^#\[' "$TMP/$p.trace" | gzip -9n > "$OUT/moments-$p.trace.gz" # the command line names temporary paths
	echo "wrote $OUT/moments-$p.trace.gz"
done
