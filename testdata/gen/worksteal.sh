#!/bin/sh
# Regenerates ../worksteal-188.trace.gz or ../worksteal-433.trace.gz: the
# work-stealing cases of Lamarche-Perrin et al., "Evaluating trace
# aggregation for performance visualization of large distributed systems"
# (section 5.1: 188 processes, one per machine, on 9 clusters of 5 sites,
# half the machines of one cluster behind a high-latency link; section 5.2:
# 433 processes on 50 machines of 3 clusters, five of them on slowed cores,
# two on one machine).
# worksteal.c (ours) runs KAAPI-like random work stealing under SimGrid's
# SMPI; worksteal_case.py writes the platform, the placement and the Pajé
# trace (states Run and Steal under the paper's hierarchy).
# Deterministic: tasks are charged as flops on the simulated hosts
# (smpi_execute_flops), the code between MPI calls is not timed
# (smpi/simulate-computation:no) and victims are drawn by a seeded
# generator, so the trace is the same on every run.
# Needs Debian's libsimgrid-dev (smpicc, smpirun).
# Usage: sh worksteal.sh 188|433 [OUT]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
CASE=${1:-188}
OUT=${2:-$HERE/../worksteal-$CASE.trace.gz}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

python3 "$HERE/worksteal_case.py" platform "$CASE" "$TMP/platform.xml"
python3 "$HERE/worksteal_case.py" hostfile "$CASE" "$TMP/hostfile"
smpicc -O2 -o "$TMP/worksteal" "$HERE/worksteal.c"
NP=$(wc -l < "$TMP/hostfile")
# shellcheck disable=SC2046 # the arguments are words
cd "$TMP" && smpirun -np "$NP" -platform "$TMP/platform.xml" -hostfile "$TMP/hostfile" \
	--cfg=smpi/simulate-computation:no --cfg=smpi/grow-injected-times:no --log=root.thres:critical \
	./worksteal $(python3 "$HERE/worksteal_case.py" args "$CASE") > "$TMP/states.csv" 2> "$TMP/err.txt" ||
	{ cat "$TMP/err.txt" >&2; exit 1; }
python3 "$HERE/worksteal_case.py" paje "$CASE" "$TMP/states.csv" "$TMP/ws.trace"
gzip -9n < "$TMP/ws.trace" > "$OUT"
echo "wrote $OUT"
