package chrome

// A prototype of simdjson's stage 2 for the event reader, kept as
// benchmarks to measure the route before building it: the events' keys
// and values are read from the positions of the stage 1 index, without a
// scan of their bytes. It reads the plain Kineto-shaped events only, and
// reports false for anything else (escapes, blanks before ':', ...), where
// a reader would fall back to readEvent. TestStage2ReadsAsTheReader holds
// what it reads to what readEventFast reads.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"sort"
	"testing"
)

// flattenIndex appends to idx the positions, from base, of the structural
// characters outside strings and of the strings' opening quotes in
// blocks; idx has room for 64 more than that. It also tells whether a
// string holds a backslash, a control character or a byte from 0x80 up.
func flattenIndex(blocks []block, base uint32, idx []uint32) ([]uint32, bool) {
	odd := uint64(0)
	n := len(idx)
	out := idx[:cap(idx)]
	for j := range blocks {
		k := &blocks[j]
		m := k.structural | k.quotes&k.inside
		odd |= k.stops &^ k.quotes & k.inside
		at := base + uint32(64*j)
		next := n + bits.OnesCount64(m)
		for m != 0 { // eight at a time, as simdjson does, past the last one
			w := out[n : n+8 : n+8] // unrolled by hand: the compiler does not
			w[0] = at + uint32(bits.TrailingZeros64(m))
			m &= m - 1
			w[1] = at + uint32(bits.TrailingZeros64(m))
			m &= m - 1
			w[2] = at + uint32(bits.TrailingZeros64(m))
			m &= m - 1
			w[3] = at + uint32(bits.TrailingZeros64(m))
			m &= m - 1
			w[4] = at + uint32(bits.TrailingZeros64(m))
			m &= m - 1
			w[5] = at + uint32(bits.TrailingZeros64(m))
			m &= m - 1
			w[6] = at + uint32(bits.TrailingZeros64(m))
			m &= m - 1
			w[7] = at + uint32(bits.TrailingZeros64(m))
			m &= m - 1
			n += 8
		}
		n = next
	}
	return out[:n], odd != 0
}

// skipNested returns the entry after the end of the object or array that
// opens at idx[k].
func skipNested(b []byte, idx []uint32, k int) (int, bool) {
	depth := 0
	for ; k < len(idx); k++ {
		switch b[idx[k]] {
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return k + 1, true
			}
		}
	}
	return 0, false
}

// stage2Args reads the args object at idx[k] of a GPU event: its
// correlation ids.
func (d *decoder) stage2Args(e *rawEvent, b []byte, idx []uint32, k int) (int, bool) {
	k++
	if k < len(idx) && b[idx[k]] == '}' {
		return k + 1, true
	}
	for k+3 <= len(idx) {
		q, c, v := idx[k], idx[k+1], idx[k+2]
		if q >= c || b[c] != ':' || b[c-1] != '"' {
			return 0, false
		}
		switch b[v] {
		case '"':
			k += 3
		case '{', '[':
			var ok bool
			if k, ok = skipNested(b, idx, k+2); !ok {
				return 0, false
			}
		default:
			if key := b[q+1 : c-1]; gpuArgKey(key) {
				i := c + 1
				if b[i] == ' ' {
					i++
				}
				e.setGPUArg(key, b[i:v])
			}
			k += 2
		}
		if k >= len(idx) {
			return 0, false
		}
		sep := b[idx[k]]
		k++
		if sep == '}' {
			return k, true
		}
	}
	return 0, false
}

// stage2Event reads the event whose '{' is at idx[k] into e, and returns
// the entry after its '}'. b holds 8 bytes after the last position of idx.
func (d *decoder) stage2Event(e *rawEvent, b []byte, idx []uint32, k int) (int, bool) {
	e.reset(0, 0)
	argsAt := -1 // the entry of args read before ph, to be read at the end
	k++
	for k+4 <= len(idx) {
		p := (*[4]uint32)(idx[k : k+4]) // one bounds check for the pair's entries
		q, c, v := p[0], p[1], p[2]
		if int(c)+8 > len(b) || q >= c || b[c] != ':' || b[c-1] != '"' {
			return 0, false
		}
		w := binary.LittleEndian.Uint64(b[q : q+8])
		key := keyOther
		switch c - q { // the key's length, with its quotes
		case 3:
			if w&(1<<24-1) == wordS {
				key = keyS
			}
		case 4:
			switch w & (1<<32 - 1) {
			case wordPh:
				key = keyPh
			case wordTs:
				key = keyTs
			case wordID:
				key = keyID
			case wordBp:
				key = keyBp
			}
		case 5:
			switch w & (1<<40 - 1) {
			case wordPid:
				key = keyPid
			case wordTid:
				key = keyTid
			case wordCat:
				key = keyCat
			case wordDur:
				key = keyDur
			}
		case 6:
			switch w & (1<<48 - 1) {
			case wordName:
				key = keyName
			case wordArgs:
				key = keyArgs
			}
		}
		if v >= uint32(len(b)) {
			return 0, false
		}
		switch b[v] {
		case '"':
			end := p[3]
			if end <= v+1 || b[end-1] != '"' {
				return 0, false
			}
			s := b[v+1 : end-1]
			switch key {
			case keyPh:
				if len(s) != 1 {
					return 0, false
				}
				e.ph = s[0]
			case keyName:
				e.name = d.strs.id(s)
			case keyCat:
				e.cat, e.gpuCat = d.strs.id(s), gpuCategory(s)
			case keyPid:
				e.pid = d.strs.id(s)
			case keyTid:
				e.tid = d.strs.id(s)
			case keyID:
				e.id, e.idLocal = d.strs.id(s), false
			case keyBp:
				e.bindEnclosing = string(s) == "e"
			case keyS:
				return 0, false
			}
			k += 3
		case '{', '[':
			var ok bool
			if key == keyArgs && e.ph == 0 {
				argsAt = k + 2 // DevTools' sorted keys: args before ph
				k, ok = skipNested(b, idx, k+2)
			} else if key == keyArgs && e.ph == 'X' && e.gpuCat != notGPU {
				k, ok = d.stage2Args(e, b, idx, k+2)
			} else if key == keyArgs && e.parsesArgs() {
				return 0, false // read by readArgsFast in the reader
			} else {
				k, ok = skipNested(b, idx, k+2)
			}
			if !ok {
				return 0, false
			}
		default:
			i := int(c) + 1
			if b[i] == ' ' {
				i++
			}
			switch key {
			case keyTs, keyDur:
				t, _, ok := microsFast(b, i)
				if !ok {
					return 0, false
				}
				if key == keyTs {
					e.ts, e.hasTs = t, true
				} else {
					e.dur, e.hasDur = t, true
				}
			case keyPid:
				e.pid = d.strs.id(b[i:v])
			case keyTid:
				e.tid = d.strs.id(b[i:v])
			case keyID:
				e.id, e.idLocal = d.strs.id(b[i:v]), false
			case keyPh, keyName, keyCat, keyBp:
				return 0, false // null, or a number where a string is read
			}
			k += 2
		}
		if k >= len(idx) {
			return 0, false
		}
		sep := b[idx[k]]
		k++
		if sep == '}' {
			if argsAt >= 0 && e.parsesArgs() {
				if e.ph != 'X' {
					return 0, false // read by readArgsFast in the reader
				}
				if _, ok := d.stage2Args(e, b, idx, argsAt); !ok {
					return 0, false
				}
			}
			return k, true
		}
	}
	return 0, false
}

// stage2Window is the bytes indexed at a time.
const stage2Window = 1 << 16

// stage2Events reads the events of the traceEvents array that starts at
// plain[at] ('[' passed) window by window, and calls got with each. An
// event the prototype does not read, and one that starts in the last
// 4 KiB of a window, is read by the reader (readEventFast, readEvent)
// from d.sc. buf is plain followed by 128 bytes.
func stage2Events(d *decoder, buf []byte, plain []byte, at int, got func(*rawEvent)) error {
	blocks := make([]block, stage2Window/64)
	idx := make([]uint32, 0, stage2Window+64)
	for from := at; ; {
		n := (min(from+stage2Window, len(plain)) - from + 63) / 64
		var c carry
		indexBlocks(buf[from:from+64*n], blocks[:n], &c)
		var odd bool
		idx, odd = flattenIndex(blocks[:n], uint32(from), idx[:0])
		if odd {
			return fmt.Errorf("a string with an escape or a wide character in %d..%d", from, from+64*n)
		}
		limit := uint32(from + 64*n - 4096)
		if from+64*n >= len(plain) {
			limit = uint32(len(plain))
		}
		k := 0
		for k < len(idx) && idx[k] < limit {
			if buf[idx[k]] != '{' {
				return fmt.Errorf("no event at %d", idx[k])
			}
			next, ok := d.stage2Event(&d.ev, buf, idx, k)
			if !ok || next >= len(idx) {
				end, err := readerEvent(d, int(idx[k]))
				if err != nil {
					return err
				}
				if next = sort.Search(len(idx), func(j int) bool { return idx[j] >= uint32(end) }); next >= len(idx) {
					k = next // it ends past the window
					from = end
					break
				}
			}
			got(&d.ev)
			if buf[idx[next]] == ']' {
				return nil
			}
			k = next + 1 // the comma
		}
		if k < len(idx) {
			from = int(idx[k])
		}
		if i := bytes.IndexByte(plain[from:], '{'); i >= 0 {
			from += i
		} else {
			return fmt.Errorf("no event after %d", from)
		}
	}
}

// readerEvent reads the event at plain[i] with the reader, as readEvents
// does, and returns the index after it.
func readerEvent(d *decoder, i int) (int, error) {
	d.sc.pos = i
	if !d.readEventFast(&d.ev) {
		if err := d.readEvent(&d.ev); err != nil {
			return 0, err
		}
	}
	return d.sc.pos, nil
}

// kinetoShaped writes n events as Kineto writes them: CPU operations,
// runtime calls and kernels with their args, flows between them.
func kinetoShaped(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 3))
	var b bytes.Buffer
	b.WriteString(`{"schemaVersion": 1, "traceEvents": [` + "\n")
	b.WriteString(`{"name": "process_name", "ph": "M", "pid": 4242, "tid": 0, "args": {"name": "python"}},` + "\n")
	ts := int64(1700000000000000)
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		if i%1000 == 999 {
			fmt.Fprintf(&b, `{"name": "thread_name", "ph": "M", "pid": 4242, "tid": %d, "args": {"name": "thread %d"}},`+"\n", i, i)
		}
		ts += int64(r.IntN(5000))
		t := fmt.Sprintf("%d.%03d", ts/1000, ts%1000)
		switch r.IntN(5) {
		case 0:
			fmt.Fprintf(&b, `{"ph": "X", "cat": "cpu_op", "name": "aten::op%d", "pid": 4242, "tid": %d, "ts": %s, "dur": %d.%03d, "args": {"External id": %d, "Sequence number": %d, "Fwd thread id": 0}}`,
				r.IntN(40), 4242+r.IntN(3), t, r.IntN(900), r.IntN(1000), i, r.IntN(99))
		case 1:
			fmt.Fprintf(&b, `{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": 4242, "ts": %s, "dur": %d.500, "args": {"External id": %d, "cbid": 211, "correlation": %d}}`,
				t, r.IntN(30), i, i)
		case 2:
			fmt.Fprintf(&b, `{"ph": "X", "cat": "kernel", "name": "sgemm_%dx64", "pid": 0, "tid": %d, "ts": %s, "dur": %d.000, "args": {"External id": %d, "device": 0, "stream": 7, "correlation": %d, "grid": [128, 1, 1], "block": [256, 1, 1]}}`,
				r.IntN(8), 7+r.IntN(2), t, r.IntN(500), i, r.IntN(i+1))
		case 3:
			if i%2 == 0 {
				fmt.Fprintf(&b, `{"args":{"data":{"frame":"F%d","url":"u"}},"cat":"devtools.timeline","dur":%d,"name":"FunctionCall","ph":"X","pid":1001,"tid":%d,"ts":%d}`, r.IntN(9), r.IntN(999), 10011+r.IntN(4), ts/1000)
				break
			}
			fmt.Fprintf(&b, `{"ph": "s", "id": %d, "pid": 4242, "tid": 4242, "ts": %s, "cat": "ac2g", "name": "ac2g"}`, i, t)
		default:
			fmt.Fprintf(&b, `{"ph": "f", "id": %d, "pid": 0, "tid": 7, "ts": %s, "cat": "ac2g", "name": "ac2g", "bp": "e"}`, r.IntN(i+1), t)
		}
	}
	b.WriteString("\n]}\n")
	return b.Bytes()
}

// TestStage2ReadsAsTheReader reads Kineto-shaped events with the
// prototype and with readEventFast, each with its own interner, and
// compares every event's fields.
func TestStage2ReadsAsTheReader(t *testing.T) {
	plain := kinetoShaped(20000, 1)
	at := bytes.IndexByte(plain, '[') + 1
	var want []rawEvent
	d := &decoder{file: "t", sc: newBytesScanner("t", plain, 1), strs: newInterner(), col: &collector{}}
	d.sc.pos = at
	for {
		if c, ok := d.sc.peek(); !ok || c != '{' {
			t.Fatalf("no event at %d", d.sc.pos)
		}
		if !d.readEventFast(&d.ev) {
			t.Fatalf("readEventFast gave up at %d", d.sc.pos)
		}
		ev := d.ev
		ev.line, ev.offset = 0, 0
		want = append(want, ev)
		c, _ := d.sc.peek()
		if d.sc.pos++; c == ']' {
			break
		}
	}
	d2 := &decoder{file: "t", sc: newBytesScanner("t", plain, 1), strs: newInterner(), col: &collector{}}
	var got []rawEvent
	keep := func(e *rawEvent) {
		ev := *e
		ev.line, ev.offset = 0, 0 // not kept by the prototype
		got = append(got, ev)
	}
	if err := stage2Events(d2, append(bytes.Clone(plain), make([]byte, 128)...), plain, at, keep); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d events read, want %d", len(got), len(want))
	}
	for i := range want {
		if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
			t.Fatalf("event %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

// stage2Bench reads CHROME_BENCH_JSON, or the benchmark trace, and the
// index of its traceEvents array.
func stage2Bench(b *testing.B) (plain, buf []byte, at int) {
	if path := os.Getenv("CHROME_BENCH_JSON"); path != "" {
		var err error
		if plain, err = os.ReadFile(path); err != nil {
			b.Fatal(err)
		}
	} else {
		_, plain = loadBench(b)
	}
	at = bytes.Index(plain, []byte(`"traceEvents"`))
	at += bytes.IndexByte(plain[at:], '[') + 1
	return plain, append(bytes.Clone(plain), make([]byte, 128)...), at
}

// BenchmarkStage2Events reads the events through the index, made window
// by window: BenchmarkParseEvents' work by the other route.
func BenchmarkStage2Events(b *testing.B) {
	plain, buf, at := stage2Bench(b)
	b.SetBytes(int64(len(plain)))
	start := cpuTime()
	for b.Loop() {
		d := &decoder{file: "bench", sc: newBytesScanner("bench", plain, 1), strs: newInterner(), col: &collector{}}
		if err := stage2Events(d, buf, plain, at, func(*rawEvent) {}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, len(plain), start)
}

// BenchmarkStage2Walk reads the events from an index of the whole file
// made before the timing: the reading alone, as if the index cost nothing.
func BenchmarkStage2Walk(b *testing.B) {
	plain, buf, at := stage2Bench(b)
	blocks := make([]block, stage2Window/64)
	idx := make([]uint32, 0, stage2Window+64)
	var all []uint32
	var c carry
	for from := 0; from < len(plain); from += stage2Window {
		n := (min(from+stage2Window, len(plain)) - from + 63) / 64
		indexBlocks(buf[from:from+64*n], blocks[:n], &c)
		idx, _ = flattenIndex(blocks[:n], uint32(from), idx[:0])
		all = append(all, idx...)
	}
	k0 := 0
	for all[k0] < uint32(at) {
		k0++
	}
	b.SetBytes(int64(len(plain)))
	start := cpuTime()
	for b.Loop() {
		d := &decoder{file: "bench", sc: newBytesScanner("bench", plain, 1), strs: newInterner(), col: &collector{}}
		for k := k0; buf[all[k]] == '{'; {
			next, ok := d.stage2Event(&d.ev, buf, all, k)
			if !ok {
				end, err := readerEvent(d, int(all[k]))
				if err != nil {
					b.Fatal(err)
				}
				next = sort.Search(len(all), func(j int) bool { return all[j] >= uint32(end) })
			}
			if buf[all[next]] == ']' {
				break
			}
			k = next + 1
		}
	}
	reportCPU(b, len(plain), start)
}

// BenchmarkStage1Flatten makes the index alone, bitmaps and positions.
func BenchmarkStage1Flatten(b *testing.B) {
	plain, buf, _ := stage2Bench(b)
	blocks := make([]block, stage2Window/64)
	idx := make([]uint32, 0, stage2Window+64)
	b.SetBytes(int64(len(plain)))
	start := cpuTime()
	for b.Loop() {
		var c carry
		for from := 0; from < len(plain); from += stage2Window {
			n := (min(from+stage2Window, len(plain)) - from + 63) / 64
			indexBlocks(buf[from:from+64*n], blocks[:n], &c)
			idx, _ = flattenIndex(blocks[:n], uint32(from), idx[:0])
		}
	}
	reportCPU(b, len(plain), start)
}
