#!/bin/sh
# Writes the trace of Ocelotl's case C (Dosimont et al. 2014, section V.B,
# Figure 4): NAS LU class C on 700 processes of three clusters of
# Grid'5000's Nancy site (Graphene, Graphite, Griffon), simulated by
# SimGrid's SMPI. lu.c is a skeleton of LU (its SSOR wavefront, its
# exchanges and reductions, not its arithmetic); lu_case.py writes the
# platform (the paper's machines and cores, Graphite on 10 GbE with an
# irregular TCP throughput, a drop of Griffon's switch bandwidth mid-run)
# and the placement. regroup.py builds cluster > machine > rank and marks
# the time outside MPI as Compute; point-to-point messages are left out.
# Deterministic: computation is charged as flops (smpi_execute_flops), the
# code is not timed (smpi/simulate-computation:no) and the throughput
# profiles come from generators seeded with the machines' names, so every
# run writes the same trace. About 1 minute of computation (3 on a busy machine) and 90 MB (15 MB compressed):
# the tests generate it once and keep it (pybind/tests/test_lu700_paper.py).
# Needs Debian's libsimgrid-dev (smpicc, smpirun).
# Usage: sh lu700.sh OUT.trace.gz
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:?usage: lu700.sh OUT.trace.gz}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

python3 "$HERE/lu_case.py" platform "$TMP/platform.xml" # and its profiles, next to it
python3 "$HERE/lu_case.py" hostfile "$TMP/hostfile"
smpicc -O2 -o "$TMP/lu" "$HERE/lu.c"
# Messages above 1 kB are sent in rendezvous, as TCP blocks a sender whose
# buffers are full: MPI_Send lasts until the transfer ends. SimGrid 3.32's
# lazy update of the network model loses transfers whose link bandwidth
# changes while they run (a false deadlock): the full update is used.
# shellcheck disable=SC2046 # the arguments are words
(cd "$TMP" && smpirun -np 700 -platform "$TMP/platform.xml" -hostfile "$TMP/hostfile" \
	-trace -trace-file "$TMP/flat.trace" --cfg=smpi/simulate-computation:no \
	--cfg=smpi/send-is-detached-thresh:1024 --cfg=network/optim:Full --log=root.thres:critical \
	./lu $(python3 "$HERE/lu_case.py" args) > "$TMP/out.txt" 2>&1) || { cat "$TMP/out.txt" >&2; exit 1; }
python3 "$HERE/regroup.py" "$TMP/flat.trace" "$TMP/hostfile" "$TMP/lu.trace" --no-links
gzip -6n < "$TMP/lu.trace" > "$OUT"
echo "wrote $OUT"
