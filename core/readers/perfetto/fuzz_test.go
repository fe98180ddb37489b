package perfetto

import (
	"bytes"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// maxFuzzInput bounds the inputs FuzzDecode reads: the fuzzer minimizes
// every new input at one execution per byte removed, so long inputs
// would stall it.
const maxFuzzInput = 16 << 10

// FuzzDecode feeds arbitrary bytes to the reader and the sniffer: they
// must not panic, the reader fails only with a FormatError, and what it
// delivers keeps the model's invariants.
func FuzzDecode(f *testing.F) {
	readertest.BoundMinimization(f)
	first, second := goodTrace()
	f.Add(cat(first, second))
	f.Add(traceOf(
		pkt(trackDesc(1, processDesc(10, "app"))),
		pkt(trackDesc(2, threadDesc(10, 11, "main"))),
		pkt(trackDesc(3, parentUUID(2), trackName("c"), counterDesc(vint(5, 1)))),
		pkt(seqID(7), flags(cleared), interned(map[uint64]string{1: "a"}, 1),
			sub(59, vint(58, 64), sub(11, vint(11, 2))),
			sub(6, sub(1, vint(1, 6), vint(2, 1000)), sub(1, vint(1, 64), vint(2, 10), vint(3, 1)))),
		pkt(seqID(7), flags(needs), ts(5), te(evType(begin), nameIID(1), fix64(47, 5))),
		pkt(seqID(7), flags(needs), ts(5), te(evType(counter), onTrack(3), vint(30, 4))),
		pkt(seqID(7), flags(needs), ts(3), te(evType(end), fix64(48, 5))),
	))
	f.Add(traceOf(
		pkt(sub(1, vint(1, 0), sub(2, vint(1, 100), sub(4, str(5, "A"), vint(6, 5))))),
		pkt(sub(1, vint(1, 1), sub(4, str(5, "C"), sub(1, []byte{10, 5}), sub(3, []byte{7, 0}), sub(6, []byte{0, 0})))),
		pkt(seqID(5), sub(44, vint(1, 3), vint(2, 4), vint(6, 1000))),
		pkt(seqID(5), te(vint(1, 10), named("x"), sub(6, vint(2, 'X'), vint(3, 5)))),
	))
	f.Add(traceOf( // legacy async events and flows, overlapping complete slices
		pkt(seqID(1), trackDesc(1, threadDesc(5, 1, "t"))),
		pkt(seqID(1), ts(10), te(named("a"), onTrack(1), sub(6, vint(2, 'b'), vint(6, 7), vint(8, 3), vint(13, 2)))),
		pkt(seqID(1), ts(20), te(named("x"), onTrack(1), sub(6, vint(2, 'X'), vint(3, 1), vint(8, 3), vint(13, 1)))),
		pkt(seqID(1), ts(30), te(named("y"), onTrack(1), sub(6, vint(2, 'X'), vint(3, 1)))),
		pkt(seqID(1), ts(40), te(named("a"), onTrack(1), sub(6, vint(2, 'e'), vint(6, 7)))),
		pkt(seqID(1), ts(50), te(named("s"), onTrack(1), sub(6, vint(2, 'S'), vint(11, 9), str(7, "scope")))),
	))
	f.Add(traceOf( // atrace in ftrace print and tracing_mark_write events
		pkt(sub(1, vint(1, 1), sub(2, vint(1, 300), vint(2, 8), sub(3, str(2, "E|7"))))),
		pkt(sub(1, vint(1, 0), sub(2, vint(1, 100), vint(2, 8), sub(3, str(2, "B|7|a"))),
			sub(2, vint(1, 200), vint(2, 8), sub(80, vint(1, 7), str(2, "m"), vint(3, 1))))),
	))
	f.Add(traceOf( // async atrace slices: S/F, G/H, a begin of an open cookie
		pkt(sub(1, vint(1, 0), sub(2, vint(1, 100), vint(2, 8), sub(3, str(2, "S|7|a|1"))),
			sub(2, vint(1, 150), vint(2, 9), sub(3, str(2, "S|7|a|1"))),
			sub(2, vint(1, 160), vint(2, 9), sub(3, str(2, "G|7|t|b|2"))),
			sub(2, vint(1, 200), vint(2, 9), sub(3, str(2, "F|7|a|1"))),
			sub(2, vint(1, 210), vint(2, 8), sub(3, str(2, "H|7|t|2"))))),
	))
	f.Add(traceOf( // state tracks and their events
		pkt(trackDesc(1, threadDesc(5, 1, "t"))),
		pkt(trackDesc(2, parentUUID(1), trackName("s"), stateDesc())),
		pkt(seqID(1), ts(10), te(evType(state), onTrack(2), named("on"))),
		pkt(seqID(1), ts(20), te(evType(state), onTrack(2), named("off"))),
		pkt(seqID(1), ts(15), te(evType(state), onTrack(2))),
		pkt(seqID(1), ts(30), te(evType(state), onTrack(1), named("x"))),
	))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		sniff(data)
		tr := trace.New()
		sink := readertest.NewContract(tr)
		open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
		err := decode(open, "mem.pftrace", int64(len(data)), sink, trace.ReadOptions{Notes: &trace.Notes{}})
		readertest.CheckRead(t, "mem.pftrace", err, sink)
		if err != nil {
			return
		}
		for i, c := range tr.Containers[1:] {
			if c.Parent < 0 || c.Parent > int32(i) {
				t.Fatalf("container %d has parent %d", i+1, c.Parent)
			}
		}
		for _, s := range tr.States.All() {
			if s.End < s.Start || s.Depth < 0 || s.Start < tr.Start || s.End > tr.End {
				t.Fatalf("state %+v in a trace spanning %v..%v", s, tr.Start, tr.End)
			}
		}
		for _, v := range tr.Variables.All() {
			if v.End < v.Start {
				t.Fatalf("variable %+v", v)
			}
		}
	})
}

// FuzzScanCommon checks the catalog's scan of packets of the common
// encoding against the general walk: where it reads a packet, it reads
// what the walk does.
func FuzzScanCommon(f *testing.F) {
	f.Add(pkt(ts(1_000_000), te(evType(begin), onTrack(100), named("MPI_Send")), seqID(1)))
	f.Add(pkt(ts(1<<40), clockID(64), te(evType(end)), seqID(300)))
	f.Add(pkt(vint(8, 1<<63), seqID(1)))
	f.Add(pkt(ts(5), trackDesc(1, processDesc(10, "app"))))
	f.Fuzz(func(t *testing.T, b []byte) {
		var common, all catalogScan
		if common.scanCommon(b) {
			all.scanAll(b, 7)
			if !reflect.DeepEqual(common, all) {
				t.Fatalf("common encoding %+v, general walk %+v", common, all)
			}
		}
	})
}

// FuzzParseCommon checks the decoding of packets of the common encoding
// against the general walk: where it reads a packet, it reads what the
// walk does.
func FuzzParseCommon(f *testing.F) {
	f.Add(pkt(ts(1_000_000), te(evType(begin), onTrack(100), named("MPI_Send")), seqID(1)))
	f.Add(pkt(ts(1<<40), te(evType(end), nameIID(3), vint(3, 1)), seqID(300), flags(needs)))
	f.Add(pkt(ts(5), te(named("a"), named("b")), te(evType(end))))
	f.Add(pkt(ts(5), te(named(strings.Repeat("n", 300)))))
	// An event whose length takes a byte more than it needs (0x82 0x00
	// for 2), after a timestamp whose value is the event's tag (0x5a).
	f.Add(append(cat(ts(0x5a), []byte{0x5a, 0x82, 0x00}), evType(end)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		var common, all parsedPacket
		in := newInterner()
		if common.parseCommon(b, 7, in) {
			all.parseAll(b, 7, in)
			if !reflect.DeepEqual(common, all) {
				t.Fatalf("common encoding %+v, general walk %+v", common, all)
			}
		}
	})
}
