#!/bin/sh
# Regenerates ../compare/jacobi32-{base,slowhost,slowlink}.trace.gz: the bundled
# Jacobi solver (jacobi.c) on 32 SMPI ranks over two zones of 16 hosts, run
# three times on three variants of platform.xml:
#   base      every host at 1 Gflop/s (no perturbation);
#   slowhost  host beta-5 at 85% of its speed (the bundled trace's platform);
#   slowlink  the inter-zone link at a fifth of its bandwidth (25 MB/s).
# Computation is simulated (smpi_execute_flops, simulate-computation off),
# so the runs are deterministic. regroup.py puts each rank under its host
# and zone and adds the Compute state, as for ../jacobi32.trace. Needs
# Debian's libsimgrid-dev. Usage: sh jacobi_compare.sh [OUTDIR]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../compare}
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
smpicc -O2 -o "$TMP/jacobi" "$HERE/jacobi.c"
cd "$TMP" && python3 "$HERE/make_platform.py"
sed 's/speed="0.85Gf"/speed="1Gf"/' platform.xml > base.xml
cp platform.xml slowhost.xml
sed 's/id="interconnect" bandwidth="125MBps"/id="interconnect" bandwidth="25MBps"/' base.xml > slowlink.xml
for v in base slowhost slowlink; do
	smpirun -np 32 -platform "$TMP/$v.xml" -hostfile "$HERE/hostfile" -trace -trace-file "$TMP/$v-flat.trace" \
		--cfg=smpi/simulate-computation:no --log=root.thres:warning ./jacobi
	python3 "$HERE/regroup.py" "$TMP/$v-flat.trace" "$HERE/hostfile" "$TMP/$v.trace"
	gzip -9n < "$TMP/$v.trace" > "$OUT/jacobi32-$v.trace.gz"
	echo "wrote $OUT/jacobi32-$v.trace.gz"
done
