package chrome

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unsafe"

	"github.com/klauspost/compress/zstd"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// zstdOf compresses what write writes.
func zstdOf(t *testing.T, write func(w io.Writer)) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := zstd.NewWriter(&b, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	write(w)
	w.Close()
	return b.Bytes()
}

// A name of 300 MiB, in a zstd file of a few kilobytes, stops the read at
// MaxValue with a FormatError, instead of a window of its size.
func TestLongValueRefused(t *testing.T) {
	data := zstdOf(t, func(w io.Writer) {
		io.WriteString(w, `[{"ph": "X", "pid": 1, "tid": 1, "ts": 1, "dur": 2, "name": "`)
		chunk := bytes.Repeat([]byte("a"), 1<<20)
		for range 300 {
			w.Write(chunk)
		}
		io.WriteString(w, `"}]`)
	})
	err := Decode(bytes.NewReader(data), "bomb.json.zst", int64(len(data)), trace.New(), trace.ReadOptions{})
	var fe *errs.FormatError
	if !errors.As(err, &fe) || fe.File != "bomb.json.zst" || !strings.Contains(err.Error(), "runs past 256 MiB") {
		t.Errorf("%v, want a FormatError saying the value is too long", err)
	}
}

// A trace of many events gathered before delivery weighs against the
// read's memory budget (trace.ReadOptions.Hold): past it, the read stops
// with the budget's error naming what it held.
func TestEventsWeighed(t *testing.T) {
	data := zstdOf(t, func(w io.Writer) {
		io.WriteString(w, "[")
		for i := range 200_000 {
			fmt.Fprintf(w, `{"ph": "X", "pid": 1, "tid": %d, "ts": %d, "dur": 1, "name": "f"},`, i%8, i)
		}
		io.WriteString(w, "]")
	})
	stop := make(chan struct{})
	meter := budget.NewMeter(2<<20, func() { close(stop) })
	err := Decode(bytes.NewReader(data), "many.json.zst", int64(len(data)), trace.New(),
		trace.ReadOptions{Hold: meter.Hold, Cancel: stop})
	var ae *errs.ArgumentError
	if !errors.As(meter.Err(), &ae) || ae.Name != "memory_budget" || !strings.Contains(ae.Reason, "more than the memory budget of 2 MiB") {
		t.Errorf("meter: %v", meter.Err())
	}
	if err == nil {
		t.Error("the read went on past its budget")
	}
	// Within the budget, the same read completes, and gives back what it
	// held.
	meter = budget.NewMeter(1<<30, nil)
	if err := Decode(bytes.NewReader(data), "many.json.zst", int64(len(data)), trace.New(), trace.ReadOptions{Hold: meter.Hold}); err != nil {
		t.Fatal(err)
	}
	if meter.Held() != 0 {
		t.Errorf("%d bytes still held after the read", meter.Held())
	}
}

// The collector weighs, with what it holds, twice the size of its largest
// array: a growing array's next growth, made while the old one is alive,
// or a thread's slices gathered from their chunks into one array and
// merged into another (see sortSlices). An array just under the budget
// would otherwise pass it three times over between two weighings (40
// million events of one thread in a process limited to 4 GiB of address
// space died in Go's allocator).
func TestWeighCountsTheNextGrowth(t *testing.T) {
	c := newCollector()
	var told int64
	c.hold = func(n int64) error { told += n; return nil }
	c.threads = append(c.threads, thread{})
	c.samples = make([]sample, 0, 1000)
	for range 10 {
		*c.flows.add() = flowPoint{}
	}
	if err := c.weigh(); err != nil {
		t.Fatal(err)
	}
	big := int64(1000 * unsafe.Sizeof(sample{}))
	if c.largest() != big || told != c.bytes()+big*2 {
		t.Errorf("largest %d, told %d; want %d and %d", c.largest(), told, big, c.bytes()+big*2)
	}
	// 20,000 slices in chunks: 800 kB once gathered.
	for range 20_000 {
		*c.threads[0].slices.add() = slice{}
	}
	if err := c.weigh(); err != nil {
		t.Fatal(err)
	}
	big = int64(20_000 * unsafe.Sizeof(slice{}))
	if c.largest() != big || told != c.bytes()+big*2 {
		t.Errorf("largest %d, told %d; want %d and %d", c.largest(), told, big, c.bytes()+big*2)
	}
	if held := int64(cap(c.samples))*int64(unsafe.Sizeof(sample{})) + c.flows.bytes + c.threads[0].slices.bytes; c.bytes() < held {
		t.Errorf("bytes %d, want at least the arrays' %d", c.bytes(), held)
	}
	c.release()
	if told != 0 {
		t.Errorf("%d still told after release", told)
	}
}

// A V8 CPU profile's samples weigh against the read's memory budget, as
// events do: a .cpuprofile of 300,000 samples stops at a budget of 2 MiB
// (its samples and their states were not weighed), and reads within one
// of 1 GiB, giving back what it held.
func TestCPUProfileWeighed(t *testing.T) {
	data := zstdOf(t, func(w io.Writer) {
		io.WriteString(w, `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"callFrame":{"functionName":"f"},"parent":1},`+
			`{"id":3,"callFrame":{"functionName":"g"},"parent":1}],"startTime":0,"samples":[`)
		const n = 300_000
		for i := range n {
			fmt.Fprintf(w, "%d,", 2+i%2)
		}
		io.WriteString(w, `2],"timeDeltas":[`)
		for range n {
			io.WriteString(w, "1,")
		}
		io.WriteString(w, `1]}`)
	})
	meter := budget.NewMeter(2<<20, nil)
	err := Decode(bytes.NewReader(data), "many.cpuprofile.zst", int64(len(data)), trace.New(), trace.ReadOptions{Hold: meter.Hold})
	var ae *errs.ArgumentError
	if !errors.As(err, &ae) || ae.Name != "memory_budget" {
		t.Errorf("%v, want the memory budget's error", err)
	}
	meter = budget.NewMeter(1<<30, nil)
	if err := Decode(bytes.NewReader(data), "many.cpuprofile.zst", int64(len(data)), trace.New(), trace.ReadOptions{Hold: meter.Hold}); err != nil {
		t.Fatal(err)
	}
	if meter.Held() != 0 {
		t.Errorf("%d bytes still held after the read", meter.Held())
	}
}

// A long value weighs against the read's memory budget as the window
// grows for it (trace.ReadOptions.Hold): a name of 32 MiB under a budget
// of 4 MiB stops the read with the budget's error, where it took twice
// MaxValue before reaching it. Under a budget it fits, the read
// completes and gives back what it held.
func TestLongValueWeighed(t *testing.T) {
	long := func(end string) []byte {
		return zstdOf(t, func(w io.Writer) {
			io.WriteString(w, `[{"ph": "X", "pid": 1, "tid": 1, "ts": 1, "dur": 2, "name": "`)
			chunk := bytes.Repeat([]byte("a"), 1<<20)
			for range 32 {
				w.Write(chunk)
			}
			io.WriteString(w, end)
		})
	}
	// Without its end: nothing is delivered, only the window holds it.
	data := long("")
	stop := make(chan struct{})
	meter := budget.NewMeter(4<<20, func() { close(stop) })
	err := Decode(bytes.NewReader(data), "long.json.zst", int64(len(data)), trace.New(), trace.ReadOptions{Hold: meter.Hold, Cancel: stop})
	var ae *errs.ArgumentError
	if !errors.As(meter.Err(), &ae) || ae.Name != "memory_budget" || !strings.Contains(ae.Reason, "more than the memory budget of 4 MiB") {
		t.Errorf("meter: %v", meter.Err())
	}
	if err == nil {
		t.Error("the read went on past its budget")
	}
	if meter.Held() != 0 {
		t.Errorf("%d bytes still held after the read", meter.Held())
	}

	data = long(`"}]`)
	meter = budget.NewMeter(1<<30, nil)
	tr := trace.New()
	if err := Decode(bytes.NewReader(data), "long.json.zst", int64(len(data)), tr, trace.ReadOptions{Hold: meter.Hold}); err != nil {
		t.Fatal(err)
	}
	if tr.States.Len() != 1 || meter.Held() != 0 {
		t.Errorf("%d states, %d bytes still held after the read", tr.States.Len(), meter.Held())
	}
}

// The budget's refusal of the events gathered is placed at the event the
// collector weighed at, every weighEvery events, for the front end to say
// (budget.Named): line 1 of this one-line file, and the byte where that
// event's object opens, the weighEvery-th, or a multiple.
func TestEventsBudgetNamesByte(t *testing.T) {
	var text bytes.Buffer
	text.WriteString("[")
	for i := range 200_000 {
		fmt.Fprintf(&text, `{"ph": "X", "pid": 1, "tid": %d, "ts": %d, "dur": 1, "name": "f"},`, i%8, i)
	}
	text.WriteString("]")
	data := zstdOf(t, func(w io.Writer) { w.Write(text.Bytes()) })
	meter := budget.NewMeter(2<<20, nil)
	err := Decode(bytes.NewReader(data), "many.json.zst", int64(len(data)), trace.New(), trace.ReadOptions{Hold: meter.Hold})
	var fe *errs.FormatError
	if meter.Err() == nil || !errors.As(err, &fe) || fe.File != "many.json.zst" || !errors.Is(err, meter.Err()) {
		t.Fatalf("%v, want the budget's error placed in many.json.zst", err)
	}
	off := int(fe.Offset)
	if fe.Line != 1 || off <= 0 || off >= text.Len() || text.Bytes()[off] != '{' || (bytes.Count(text.Bytes()[:off], []byte("{"))+1)%weighEvery != 0 {
		t.Fatalf("placed at line %d, byte %d: want line 1 and the start of a multiple of the %d-th event", fe.Line, fe.Offset, weighEvery)
	}
	want := fmt.Sprintf("reading many.json.zst, line 1 (byte %d): the read holds", off)
	if named := budget.Named(meter.Err(), err, "many.json.zst").Error(); !strings.Contains(named, want) {
		t.Errorf("%s\nwant %q", named, want)
	}
}
