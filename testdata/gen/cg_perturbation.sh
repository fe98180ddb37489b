#!/bin/sh
# Regenerates ../cg-perturbed.trace.gz: NAS CG class A on 64 MPI ranks,
# simulated by SimGrid's SMPI on four clusters of 16 hosts (c0..c3), while
# a speed profile slows the hosts of cluster c2 to 30% from 0.10 s to 0.16 s
# (simulated time) and host c0-5 (rank 5) to 70% from 0.25 s to 0.27 s.
#
# CG is the Fortran NPB 3.3 MPI code (nas/cg/, from SimGrid's old copy of
# NPB3.3-MPI; npbparams.h is setparams' output for 64 processes, class A),
# built with smpiff (SimGrid's gfortran wrapper). The computation is counted,
# not timed: nas/cg/cg-flops.patch charges each loop of the kernel its
# floating-point operations on the simulated host (smpi_execute_flops: two
# per nonzero for the sparse products, one or two per element for the
# vector updates and dot products) and the simulation does not time the
# code between MPI calls (smpi/simulate-computation:no). Hosts compute at
# 250 Mflop/s (a core's rate on CG's memory-bound sparse products). So the
# trace is the same on every run. Takes about a minute.
# Needs Debian's libsimgrid-dev, gfortran and patch.
# Usage: sh cg_perturbation.sh [OUT] [PERTURBATIONS]  (PERTURBATIONS as
# make_platform_flat.py --perturb; "" for none)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/../cg-perturbed.trace.gz}
PERTURB=${2-c2:0.10:0.16:0.3,c0-5:0.25:0.27:0.7}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Today's gfortran needs leave for the old code's argument mismatches and
# X'..' constants; smpiff compiles one file at a time.
patch -s -o "$TMP/cg.f" "$HERE/nas/cg/cg.f" "$HERE/nas/cg/cg-flops.patch"
for f in cg print_results randi8 timers; do
	src="$HERE/nas/cg/$f.f"
	[ "$f" = cg ] && src="$TMP/cg.f"
	smpiff -O2 -fallow-argument-mismatch -fallow-invalid-boz -std=legacy -I"$HERE/nas/cg" \
		-c -o "$TMP/$f.o" "$src" 2> "$TMP/build.log" || { cat "$TMP/build.log" >&2; exit 1; }
done
smpiff -O2 -o "$TMP/cg.A.64" "$TMP/cg.o" "$TMP/print_results.o" "$TMP/randi8.o" "$TMP/timers.o"

python3 "$HERE/make_platform_flat.py" --hosts 16 --names c0,c1,c2,c3 --speed 250Mf --interconnect 10GBps \
	--interconnect-latency 10us --slow "" --perturb "$PERTURB" -o "$TMP/platform.xml"
for c in c0 c1 c2 c3; do for i in $(seq 0 15); do echo "$c-$i"; done; done > "$TMP/hostfile"
cd "$TMP" && smpirun -np 64 -platform "$TMP/platform.xml" -hostfile "$TMP/hostfile" \
	-trace -trace-file "$TMP/flat.trace" --cfg=smpi/simulate-computation:no \
	--log=root.thres:critical ./cg.A.64 > "$TMP/out.txt" 2>&1
grep -q "Verification    =               SUCCESSFUL" "$TMP/out.txt" || { cat "$TMP/out.txt" >&2; exit 1; }
python3 "$HERE/regroup.py" "$TMP/flat.trace" "$TMP/hostfile" "$TMP/cg.trace" --no-links
gzip -9n < "$TMP/cg.trace" > "$OUT"
echo "wrote $OUT"
