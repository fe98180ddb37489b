#!/usr/bin/env bash
# Times Macroscope's OTF2 reader (bench/otf2read) against otf2-print on the
# same archives, in the same run, best of $REPEAT runs each:
#   otf2read            decodes everything into Macroscope's trace model
#   otf2-print --silent decodes and validates every event, prints nothing
#   otf2-print          decodes and prints every event (to /dev/null)
# Usage: bench/otf2_vs_otf2print.sh [anchor.otf2...]
# Without arguments, the OTF2 archives of the shared trace corpus are used.
set -euo pipefail
cd "$(dirname "$0")/.."
REPEAT=${REPEAT:-5}
CORPUS=${CORPUS:-../shared/traces}

if ! command -v otf2-print >/dev/null; then
	echo "otf2-print is not installed (Debian package otf2-tools)" >&2
	exit 1
fi
if [ $# -eq 0 ]; then
	set -- "$CORPUS"/pipit/tests/data/ping-pong-otf2/traces.otf2 \
		"$CORPUS"/pipit/tests/data/ping-pong-otf2-papi/traces.otf2 \
		"$CORPUS"/fastotf2/sample-traces/simple-mi300-example-run/traces.otf2 \
		"$CORPUS"/tracer-stencil4d/stencil4d-otf/traces-32/traces.otf2 \
		"$CORPUS"/tracer-stencil4d/stencil4d-otf/traces-64/traces.otf2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/otf2read" ./bench/otf2read

# best COMMAND...: the best wall-clock time of $REPEAT runs, in seconds.
best() {
	local b="" t0 t1 t
	for _ in $(seq "$REPEAT"); do
		t0=$(date +%s%N)
		"$@" >/dev/null
		t1=$(date +%s%N)
		t=$(((t1 - t0) / 1000))
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
	done
	printf '%d.%06d' $((b / 1000000)) $((b % 1000000))
}

printf '%-70s %12s %12s %12s\n' archive otf2read print-silent print-all
for a in "$@"; do
	ours=$(best "$tmp/otf2read" -n 1 "$a")
	silent=$(best otf2-print --silent "$a")
	all=$(best otf2-print "$a")
	printf '%-70s %11ss %11ss %11ss\n' "$(du -sh "$(dirname "$a")" | cut -f1) ${a#"$CORPUS"/}" "$ours" "$silent" "$all"
done
echo "(wall-clock seconds, best of $REPEAT runs; otf2read includes process start-up like otf2-print)"
