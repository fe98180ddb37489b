package perfetto

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// slicesTrace is a trace shaped as the benchmark's generated file
// (bench/_synthetic.py): ranks' threads, each a run of named slices,
// every packet a timestamp, a track event and the sequence id.
func slicesTrace(packets int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	const ranks = 8
	head := [][]byte{pkt(trackDesc(1, processDesc(4242, "synthetic")), seqID(1))}
	for r := range uint64(ranks) {
		head = append(head, pkt(trackDesc(100+r, parentUUID(1), threadDesc(4242, 5000+r, "rank")), seqID(1)))
	}
	out := traceOf(head...)
	names := []string{"compute", "MPI_Send", "MPI_Wait", "MPI_Recv"}
	clock := make([]uint64, ranks)
	for i := range clock {
		clock[i] = 1_000_000
	}
	for n := 0; n < packets; {
		for r := range uint64(ranks) {
			t := clock[r]
			out = append(out, traceOf(pkt(ts(t), te(evType(begin), onTrack(100+r), named("step")), seqID(1)))...)
			for range 8 {
				t += 10
				out = append(out, traceOf(pkt(ts(t), te(evType(begin), onTrack(100+r), named(names[rng.IntN(4)])), seqID(1)))...)
				t += 100 + rng.Uint64N(10_000)
				out = append(out, traceOf(pkt(ts(t), te(evType(end), onTrack(100+r)), seqID(1)))...)
			}
			t += 10
			out = append(out, traceOf(pkt(ts(t), te(evType(end), onTrack(100+r)), seqID(1)))...)
			clock[r] = t + 10
			n += 18
		}
	}
	return out
}

// BenchmarkDecodeSlices reads a trace of slices as the benchmark's
// generated file holds them, from memory, into a counting sink.
func BenchmarkDecodeSlices(b *testing.B) {
	data := slicesTrace(200_000)
	b.SetBytes(int64(len(data)))
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	for b.Loop() {
		if err := decode(open, "mem", int64(len(data)), &trace.Counter{}, trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseSlices times the decoding of each packet on its own
// (what the reading goroutine does), without the file's reading.
func BenchmarkParseSlices(b *testing.B) {
	data := slicesTrace(200_000)
	b.SetBytes(int64(len(data)))
	var pkts [][]byte
	fr := &framer{r: bytes.NewReader(nil), buf: data}
	for {
		p, _, err := fr.next(false)
		if err != nil {
			break
		}
		pkts = append(pkts, p)
	}
	in := newInterner()
	b.Run("catalog", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		var s catalogScan
		for b.Loop() {
			for _, p := range pkts {
				s.scan(p, 0)
			}
		}
	})
	b.Run("events", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		var p parsedPacket
		for b.Loop() {
			for _, pk := range pkts {
				p.parse(pk, 0, in)
			}
		}
	})
}

// BenchmarkDecodeSmall reads a trace the size of most files users open
// (140 kB, one chunk), from memory: what a read costs beyond decoding
// shows here (compare its CPU time, user+sys, across changes: a read of
// a file larger than a chunk uses all cores).
func BenchmarkDecodeSmall(b *testing.B) {
	data := slicesTrace(7000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	for b.Loop() {
		if err := decode(open, "mem", int64(len(data)), &trace.Counter{}, trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
