package chrome

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// slowSkip is what the scanner's ordinary path makes of the value at the
// start of b: where it ends, the lines passed and the leniency seen, or
// its error.
func slowSkip(b []byte, depth int) string {
	s := newBytesScanner("in", b, 1)
	s.slowOnly = true
	if err := s.skipSlow(depth); err != nil {
		return "error"
	}
	return fmt.Sprint(s.pos, s.line-1, s.lenient)
}

// checkSkipFast compares skipFast with the ordinary path on b: where the
// fast path accepts, it must agree.
func checkSkipFast(t *testing.T, b []byte) {
	t.Helper()
	for _, depth := range []int{0, 1, maxNesting - 2} {
		end, lines, lenient, ok := skipFast(b, 0, depth)
		if !ok {
			continue
		}
		if got, want := fmt.Sprint(end, lines, lenient), slowSkip(b, depth); got != want {
			t.Fatalf("skipFast(%q, depth %d) = %s, ordinary path %s", b, depth, got, want)
		}
	}
	// The string scan stops where a byte-by-byte scan stops.
	for i := range b {
		want := i
		for want < len(b) && !stringSpecial[b[want]] {
			want++
		}
		if got := plainRun(b, i); got != want && !(got < want && len(b)-got < 8) {
			t.Fatalf("plainRun(%q, %d) = %d, want %d", b, i, got, want)
		}
	}
}

func TestSkipFast(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, `{"a": [1, 2.5e3, -0, true, false, null, "x\"y"]}`, `{"a":1,}`, `[1,]`, `"raw` + "\n" + `"`,
		`"\u00e9\ud83d\ude00 é"`, "\"\xff\"", `{"a": 01}`, `[1 2]`, `{"a" 1}`, `{"a":1`, `12`, `tru`, `[{"a":[{"b":{}}]}]`,
		"{\n  \"a\": [\n    1\n  ]\n}", `[` + `[`[:1] + `]`, string(bytes.Repeat([]byte("["), 70)) + string(bytes.Repeat([]byte("]"), 70)),
	} {
		checkSkipFast(t, []byte(in))
		checkSkipFast(t, []byte(in+" , "))
	}
}

// FuzzSkipFast checks the eight-bytes-at-a-time scans against the
// scanner's ordinary path and byte-by-byte scans.
func FuzzSkipFast(f *testing.F) {
	f.Add([]byte(`{"a": [1, 2.5e3, -0, true, false, null, "x\"y\\"], "b": {"c": "\u00e9"},}`))
	f.Add([]byte("[\"tab\there\", \"\xe9\", {\"k\" : 1e+5}]"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return
		}
		checkSkipFast(t, b)
	})
}

// checkEventFast compares readEventFast with readEvent on the event at
// the start of b: where the fast path accepts, it must read the same
// event, intern the same strings in the same order and stop at the same
// place.
func checkEventFast(t *testing.T, b []byte, keepArgs bool) {
	t.Helper()
	read := func(fast bool) (string, bool) {
		col := newCollector()
		sc := newBytesScanner("in", b, 1)
		sc.slowOnly = !fast
		d := &decoder{file: "in", sc: sc, col: col, strs: col.strs, keepArgs: keepArgs}
		if c, ok := sc.peek(); !ok || c != '{' {
			return "", false
		}
		if fast {
			if !d.readEventFast(&d.ev) {
				return "", false
			}
		} else if err := d.readEvent(&d.ev); err != nil {
			return "error", true
		}
		ev := d.ev
		ev.argsText = nil
		return fmt.Sprintf("%+v %v %d %d %v %q", ev, ev.counters, sc.pos, sc.line, sc.lenient, col.strs.Strings()), true
	}
	if got, ok := read(true); ok {
		if want, _ := read(false); got != want {
			t.Fatalf("readEventFast(%q) = %s, readEvent %s", b, got, want)
		}
	}
}

func TestEventFast(t *testing.T) {
	for _, in := range []string{
		`{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": "7", "ts": 12.5, "dur": 3, "args": {"a": [1, {"b": null}]}}`,
		`{"name": "process_name", "ph": "M", "pid": 9, "args": {"name": "MTIA 9", "sort_index": 12, "labels": null}}`,
		`{"ph": "M", "name": "thread_sort_index", "args": {"sort_index": "x"}}`,
		`{"ph": "C", "name": "mem", "pid": 1, "ts": 1, "args": {"a": 1.5, "b": "2e3", "c": true, "d": "x", "e": 1e999}}`,
		`{"ph": "T", "name": "s", "id": 3, "ts": 1, "args": {"step": "one", "x": 1}}`,
		`{"ph": "i", "s": "g", "bp": "e", "ts": 1}`, `{"ph": "X", "ts": "12"}`, `{"ph": "X", "ts": 1e3}`, `{"ph": "X", "ts": 1x}`,
		`{"ph": "X", "args": {}, "ph": "B"}`, `{"args": {"a": 1}, "ph": "X"}`, `{}`, `{"ph": "XY"}`, `{"name": "a\"b"}`,
		`{"name": "é", "cat": "` + "\xff" + `"}`, `{"ph": "X",}`, `{"ph": "X", "pid": null}`, "{\n\"ph\"\n:\n\"X\"\n}",
		// Kineto's GPU events, whose correlation ids the reader keeps.
		`{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2, "args": {"correlation": 12, "stream": 7}}`,
		`{"ph": "X", "name": "Event Sync", "args": {"wait_on_stream": 20, "wait_on_cuda_event_record_corr_id": 32, "correlation": 54}, "cat": "cuda_sync"}`,
		`{"ph": "X", "cat": "cuda_runtime", "args": {"correlation": "12", "x": {"correlation": 3}, "wait_on_stream": -1}}`,
		`{"ph": "X", "cat": "cuda_runtime", "args": {"correlation": 1.5, "wait_on_stream": 99999999999999999999}}`,
		`{"args": {"correlation": 4}, "cat": "gpu_memcpy", "ph": "X"}`, `{"ph": "X", "args": {"correlation": 4}, "cat": "cpu_op"}`,
	} {
		for _, keep := range []bool{false, true} {
			checkEventFast(t, []byte(in), keep)
			checkEventFast(t, []byte(in+",{"), keep)
		}
	}
}

// FuzzEventFast checks readEventFast against readEvent.
func FuzzEventFast(f *testing.F) {
	f.Add([]byte(`{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": "7", "ts": 12.5, "dur": 3, "args": {"a": [1]}},`), false)
	f.Add([]byte(`{"name": "process_name", "ph": "M", "pid": 9, "args": {"name": "MTIA 9", "sort_index": 12}},`), true)
	f.Add([]byte(`{"ph": "C", "name": "mem", "pid": 1, "ts": 1, "args": {"a": 1.5, "b": "2e3", "c": true}},`), false)
	f.Add([]byte(`{"ph": "X", "name": "Stream Wait Event", "args": {"wait_on_stream": 20, "wait_on_cuda_event_record_corr_id": 32, "correlation": 54}, "cat": "cuda_sync"},`), false)
	f.Add([]byte(`{"ph": "X", "cat": "kernel", "ts": 1, "dur": 2, "args": {"correlation": 12, "grid": [1, 2]}},`), true)
	f.Fuzz(func(t *testing.T, b []byte, keepArgs bool) {
		if len(b) > maxFuzzInput {
			return
		}
		checkEventFast(t, b, keepArgs)
	})
}

// FuzzNumberEnd checks the one-pass number scan against the scanner's
// token rule and validNumber.
func FuzzNumberEnd(f *testing.F) {
	for _, s := range []string{"0,", "-12.5e+3}", "01 ", "1.", "1e", "-", "1.5.5,", "12",
		"1700000000610.000,", "123456789012345678901234567890.12345678901234567890}", "12345678\xb9\xb012/:0123456789 "} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// The eight-bytes-at-a-time digit scan stops where a byte-by-byte
		// one does.
		for i := range b {
			want := i
			for want < len(b) && b[want] >= '0' && b[want] <= '9' {
				want++
			}
			if got := digitRun(b, i); got != want {
				t.Fatalf("digitRun(%q, %d) = %d, want %d", b, i, got, want)
			}
		}
		j := 0
		for j < len(b) && numberByte(b[j]) {
			j++
		}
		wantOK := j > 0 && j < len(b) && validNumber(b[:j])
		got, ok := numberEnd(b, 0)
		if ok != wantOK || (ok && got != j) {
			t.Fatalf("numberEnd(%q) = %d %v, want %d %v", b, got, ok, j, wantOK)
		}
	})
}

// TestSortSlices checks sortSlices against a plain sort on slices in
// order, in a few runs, nearly in order and in no order.
func TestSortSlices(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for trial := range 400 {
		n := r.IntN(3000)
		sl := make([]slice, n)
		for i := range sl {
			start := trace.Time(r.IntN(1000))
			sl[i] = slice{start: start, end: start + trace.Time(r.IntN(50)), seq: int32(i)}
		}
		switch trial % 4 {
		case 0:
			slices.SortFunc(sl, compareSlices)
		case 1: // runs
			cuts := r.IntN(20) + 1
			for c := range cuts {
				lo, hi := n*c/cuts, n*(c+1)/cuts
				slices.SortFunc(sl[lo:hi], compareSlices)
			}
		case 2: // a few out of place
			slices.SortFunc(sl, compareSlices)
			for range r.IntN(n/10 + 1) {
				if n > 1 {
					i, j := r.IntN(n), r.IntN(n)
					sl[i], sl[j] = sl[j], sl[i]
				}
			}
		}
		want := slices.Clone(sl)
		slices.SortFunc(want, compareSlices)
		sortSlices(sl)
		if !slices.Equal(sl, want) {
			t.Fatalf("trial %d (%d slices): sortSlices differs from a sort", trial, n)
		}
	}
}
