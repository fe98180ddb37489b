package chrome

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
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
		`{"args": {"name": "a"}, "ph": "M", "args": {"name": "b"}}`, `{"args": {"name": 1}, "name": "thread_name", "ph": "M"}`,
		`{"args": {"a": [1,]}, "ph": "i"}`, `{"args": {"sort_index": 3}, "ph": "M", "name": "process_sort_index"}`,
		`{"args": {"step": "s1"}, "ph": "T", "id": 1}`, `{"args": {"x": 1}}`, `{"args": {"v": 2, "w": "x"}, "name": "c", "ph": "C"}`,
		// Separators in other layouts than none or one space after them.
		"{\"ph\":  \"X\",  \"ts\":\t1 , \"dur\" :2,\n\"args\": {\"a\":  1,  \"b\" : 2 }}", `{"ph": "X", "ts": 1, }`,
		`{"ph": "M", "name": "process_name", "args": {"name":  "p",  "sort_index": 1 }}`, `{"ph":`, `{"ph": "X",`,
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
		checkMicrosFast(t, b)
	})
}

// checkMicrosFast compares microsFast, where it accepts, with numberEnd
// and parseMicros on the number at the start of b.
func checkMicrosFast(t *testing.T, b []byte) {
	t.Helper()
	got, end, ok := microsFast(b, 0)
	if !ok {
		return
	}
	wantEnd, valid := numberEnd(b, 0)
	if !valid || end != wantEnd {
		t.Fatalf("microsFast(%q) ends at %d, numberEnd %d %v", b, end, wantEnd, valid)
	}
	if want, err := parseMicros(b[:end]); err != nil || got != want {
		t.Fatalf("microsFast(%q) = %d, parseMicros %d %v", b, got, want, err)
	}
}

// TestMicrosFast checks microsFast on timestamps of every length, with
// and without fractions, signs and padding, and that it takes the usual
// forms rather than leaving them to the ordinary reading.
func TestMicrosFast(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	pad := "                "
	for _, in := range []string{"1700000000610.000", "500.250", "12.5", "1", "123456789012345", "-42.12345",
		"999999999999999.9996", "7.0004", "7.0005", "1234567.89e3", "0.5", "01", "1234567890123456", "-0.25", "0", "0.",
		"9223372036854774.9995", "9223372036854775", "9999999999999999", "12345678901234567", "00.5", "-", "-x"} {
		checkMicrosFast(t, []byte(in+","+pad))
	}
	for _, in := range []string{"1700000000610.000", "500.250", "1", "123456789012345", "-42.12345", "0.501", "0",
		"1669783687464181.123"} {
		if _, _, ok := microsFast([]byte(in+","+pad), 0); !ok {
			t.Errorf("microsFast leaves %s to the ordinary reading", in)
		}
	}
	for range 20000 {
		n := 1 + r.IntN(18)
		digits := make([]byte, n)
		for k := range digits {
			digits[k] = byte('0' + r.IntN(10))
		}
		in := string(digits)
		if r.IntN(2) == 0 {
			in += "." + strconv.Itoa(r.IntN(100000))[1:]
		}
		if r.IntN(4) == 0 {
			in = "-" + in
		}
		checkMicrosFast(t, []byte(in+"}"+pad[:r.IntN(len(pad))]))
	}
}

// TestSortSlices checks sortSlices against a plain sort on slices in
// order, in a few runs, nearly in order and in no order, in one chunk or
// several.
func TestSortSlices(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for trial := range 400 {
		n := r.IntN(3000)
		if trial%5 == 4 {
			n += 2*chunkLen + r.IntN(chunkLen)
		}
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
		c := chunksOf(sl)
		sortSlices(c)
		if got := c.gather(); !slices.Equal(got, want) {
			t.Fatalf("trial %d (%d slices): sortSlices differs from a sort", trial, n)
		}
	}
}

// TestEventKey checks the word comparisons of eventKey against reading
// the key as a string, on every key it tells, quoted and followed by
// whatever, near words of the same bytes, and cut at every length.
func TestEventKey(t *testing.T) {
	named := map[string]fieldKey{"ph": keyPh, "name": keyName, "cat": keyCat, "bp": keyBp, "s": keyS,
		"pid": keyPid, "tid": keyTid, "id": keyID, "ts": keyTs, "dur": keyDur, "args": keyArgs,
		"id2": keyFlow, "bind_id": keyFlow, "flow_in": keyFlow, "flow_out": keyFlow, "tts": keyOther, "tdur": keyOther}
	var keys []string
	for k := range named {
		keys = append(keys, k, k+"x", k[:len(k)-1], "x"+k, k+`\"`, k+"é")
	}
	keys = append(keys, "", "p", "correlation", "External id")
	for _, k := range keys {
		for _, tail := range []string{`: 1, "a": 2}`, `:1}`, ` : "x"`, ``} {
			in := []byte(`"` + k + `"` + tail)
			for n := 0; n <= len(in); n++ {
				b := in[:n]
				got, j, ok := eventKey(b, 0)
				v, wantJ, wantOK := plainString(b, 0)
				want := keyOther
				if wantOK {
					if f, found := named[string(v)]; found {
						want = f
					}
				}
				if ok != wantOK || ok && (got != want || j != wantJ) {
					t.Fatalf("eventKey(%q) = %v %d %v, want %v %d %v", b, got, j, ok, want, wantJ, wantOK)
				}
			}
		}
	}
}

// TestEventFastTakes checks that the fast path reads, rather than leaves
// to readEvent, the events the common writers produce (Kineto's steps,
// operators, launches, kernels and flows; Chrome's slices, instants and
// metadata): leaving them would change no result, only the speed.
func TestEventFastTakes(t *testing.T) {
	for _, in := range []string{
		`{"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 4242, "tid": 4242, "ts": 1700000000610.000, "dur": 500.250, "args": {"External id": 3, "Sequence number": 3, "Fwd thread id": 0}}`,
		`{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": 4242, "ts": 1700000000710.000, "dur": 12.500, "args": {"External id": 3, "cbid": 211, "correlation": 2}}`,
		`{"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4>", "pid": 0, "tid": 8, "ts": 1700000000760.000, "dur": 300.000, "args": {"External id": 3, "device": 0, "stream": 8, "correlation": 2, "registers per thread": 32, "grid": [128, 1, 1], "block": [256, 1, 1]}}`,
		`{"ph": "s", "id": 2, "pid": 4242, "tid": 4242, "ts": 1700000000710.000, "cat": "ac2g", "name": "ac2g"}`,
		`{"ph": "f", "id": 2, "pid": 0, "tid": 8, "ts": 1700000000760.000, "cat": "ac2g", "name": "ac2g", "bp": "e"}`,
		`{"name": "process_name", "ph": "M", "pid": 4242, "tid": 0, "args": {"name": "python"}}`,
		`{"pid":1,"tid":2,"ts":15,"ph":"X","cat":"toplevel","name":"Task","dur":3,"tdur":2,"tts":5,"args":{"src_file":"a.cc","src_func":"Run"}}`,
		`{"pid":1,"tid":2,"ts":15,"ph":"B","cat":"v8","name":"Compile","args":{}}`,
		`{"pid":1,"tid":2,"ts":16,"ph":"E","cat":"v8","name":"Compile","args":{}}`,
		`{"pid":1,"tid":2,"ts":17,"ph":"i","cat":"blink","name":"Mark","s":"t"}`,
		// DevTools sorts the keys: args come before ph.
		`{"args":{"name":"Renderer"},"cat":"__metadata","name":"process_name","ph":"M","pid":1001,"tid":0,"ts":0}`,
		`{"args":{"data":{"frame":"A1"}},"cat":"blink","dur":5,"name":"Layout","ph":"X","pid":1,"tdur":4,"tid":2,"ts":15,"tts":5}`,
		`{"args":{"JSHeapUsedSize":12,"Nodes":3},"cat":"devtools.timeline","name":"UpdateCounters","ph":"C","pid":1,"tid":2,"ts":1}`,
		`{"args":{"correlation":4},"cat":"kernel","name":"k","ph":"X","pid":0,"tid":7,"ts":1,"dur":2}`,
	} {
		b := []byte(in + ",")
		col := newCollector()
		sc := newBytesScanner("in", b, 1)
		d := &decoder{file: "in", sc: sc, col: col, strs: col.strs}
		sc.peek()
		if !d.readEventFast(&d.ev) {
			t.Errorf("the fast path leaves %s to readEvent", in)
		}
		checkEventFast(t, b, false)
		checkEventFast(t, b, true)
	}
}

// TestStringStops checks the lowest byte stringStops marks against a
// byte-by-byte scan, on words of the bytes around each boundary its
// subtractions test (a borrow from one byte into the next included).
func TestStringStops(t *testing.T) {
	edges := []byte{0x00, 0x01, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 'a', 0x7f, 0x80, 0x81, 0x9f,
		0xa0, 0xa1, 0xa2, 0xa3, 0xdb, 0xdc, 0xdd, 0xfe, 0xff}
	r := rand.New(rand.NewPCG(11, 2))
	var w [8]byte
	for range 1 << 20 {
		for k := range w {
			w[k] = edges[r.IntN(len(edges))]
		}
		want := 8
		for k, c := range w {
			if stringSpecial[c] {
				want = k
				break
			}
		}
		m := stringStops(binary.LittleEndian.Uint64(w[:]))
		if got := bits.TrailingZeros64(m) >> 3; got != want {
			t.Fatalf("stringStops(% x): lowest mark at %d, want %d", w, got, want)
		}
	}
}

// phase reads a one-character string as plainString does, for every byte,
// and refuses the strings of other lengths.
func TestPhase(t *testing.T) {
	for c := range 256 {
		b := []byte{'"', byte(c), '"', ','}
		got, end, ok := phase(b, 0)
		v, j, want := plainString(b, 0)
		want = want && len(v) == 1
		if ok != want || ok && (got != v[0] || end != j) {
			t.Errorf("phase(%q) = %q, %d, %v; plainString gives %q, %d, %v", b, got, end, ok, v, j, want)
		}
	}
	for _, s := range []string{`""`, `"XX"`, `"X`, `X"`, `"`} {
		if _, _, ok := phase([]byte(s), 0); ok {
			t.Errorf("phase(%q) reads a phase", s)
		}
	}
}

// TestShortNumberEnd checks the one-word number test against the
// scanner's token rule and validNumber, on words of the bytes its tests
// tell apart (digits, a leading zero, the bytes that continue a number,
// ends), and that it takes what it is for: an integer of one to seven
// digits without a leading zero, ended within the word.
func TestShortNumberEnd(t *testing.T) {
	edges := []byte("00123456789-+.eE, }]/:a\x00\x80\xb9")
	r := rand.New(rand.NewPCG(5, 8))
	b := make([]byte, 10)
	for range 1 << 20 {
		for k := range b {
			b[k] = edges[r.IntN(len(edges))]
		}
		b := b[:8+r.IntN(3)]
		j := 0
		for j < len(b) && numberByte(b[j]) {
			j++
		}
		wantOK := j > 0 && j < len(b) && validNumber(b[:j])
		got, ok := shortNumberEnd(b, 0)
		if ok && (!wantOK || got != j) {
			t.Fatalf("shortNumberEnd(%q) = %d, want %d %v", b, got, j, wantOK)
		}
		short := wantOK && j < 8 && digitRun(b, 0) == j && (b[0] != '0' || j == 1)
		if ok != short {
			t.Fatalf("shortNumberEnd(%q) = %d %v, want it to take exactly the short integers (%v)", b, got, ok, short)
		}
	}
}
