#!/usr/bin/env bash
# Runs every Go fuzz target of the repository in turn, each for FUZZTIME
# (default 30s), and prints a table of the execution rate of each.
#
#   scripts/fuzz.sh                 every target, 30 s each
#   FUZZTIME=10s scripts/fuzz.sh    every target, 10 s each
#   scripts/fuzz.sh core/readers/paje       the targets of the packages under core/readers/paje
#   MINRATE=1000 scripts/fuzz.sh    also fail when a target runs slower
#
# The targets are found by grep (func FuzzXxx in *_test.go), so a new one is
# run without editing this script. A crasher fails the run: Go writes it to
# the package's testdata/fuzz/FuzzXxx/, where it becomes a regression test
# of the ordinary `go test` once committed.
set -uo pipefail
cd "$(dirname "$0")/.."

FUZZTIME=${FUZZTIME:-30s}
MINRATE=${MINRATE:-0}
GO=${GO:-go}
dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
  for d in core arrowio plots cmd pybind; do [ -d "$d" ] && dirs+=("$d"); done
fi

failed=()
summary=()
while IFS=: read -r file name; do
  pkg=./$(dirname "$file")
  log=$(mktemp)
  echo "== $pkg $name ($FUZZTIME)"
  $GO test -run='^$' -fuzz="^${name}\$" -fuzztime="$FUZZTIME" "$pkg" >"$log" 2>&1
  rc=$?
  # The last progress line: "fuzz: elapsed: 30s, execs: 123456 (4115/sec), ..."
  last=$(grep -E '^fuzz: elapsed: [0-9]+s, execs: [0-9]+' "$log" | tail -n 1)
  elapsed=$(sed -E 's/^fuzz: elapsed: ([0-9]+)s.*/\1/' <<<"$last")
  execs=$(sed -E 's/.*execs: ([0-9]+) .*/\1/' <<<"$last")
  rate=0
  if [ -n "$last" ] && [ "${elapsed:-0}" -gt 0 ]; then rate=$((execs / elapsed)); fi
  status=ok
  if [ $rc -ne 0 ]; then
    status=FAIL
    tail -n 30 "$log"
  elif [ "$rate" -lt "$MINRATE" ]; then
    status=SLOW
  fi
  [ "$status" = ok ] || failed+=("$pkg $name: $status")
  echo "   $last"
  summary+=("$(printf '%-22s %-24s %10s execs %6s/sec  %s' "$pkg" "$name" "${execs:-0}" "$rate" "$status")")
  rm -f "$log"
done < <(grep -rHoE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*' "${dirs[@]}" | sed 's/:func /:/' | sed 's#^\./##' | sort)

echo
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo
  printf 'failed: %s\n' "${failed[@]}"
  exit 1
fi
