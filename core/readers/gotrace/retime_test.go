package gotrace

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	xtrace "golang.org/x/exp/trace"
)

// nanos converts the events of a decoded generation to the parser's
// nanoseconds, as it does: the batch's time, then each delta, each
// multiplied by the nanoseconds per unit and truncated.
func nanos(g *wireGeneration) []int64 {
	f := 1.0 / (float64(g.freq) / 1e9)
	var out []int64
	for _, b := range g.batches {
		if b.kind != batchEvents {
			continue
		}
		last, t := int64(float64(b.time)*f), b.time
		for _, e := range b.events {
			last += int64(float64(e.time-t) * f)
			t = e.time
			out = append(out, last)
		}
	}
	return out
}

// TestParserRetimes measures what stands between a decoder that orders
// events per goroutine and P and the parser's model: the parser makes
// the times of the events it delivers strictly increasing, moving an
// event whose time is not after the previous one's to 1 ns after it. The
// times it delivers that the wire's events do not have are such moved
// events (or the extra events it makes of a coroutine switch).
func TestParserRetimes(t *testing.T) {
	for _, path := range wireFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			br := bufio.NewReader(f)
			head, _ := br.Peek(headerLen)
			ver, _ := version(head, path)
			br.Discard(headerLen)
			var wire []int64
			if err := decodeWire(br, ver, 2, func(g *wireGeneration) error {
				wire = append(wire, nanos(g)...)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			f.Seek(0, io.SeekStart)
			xr, err := xtrace.NewReader(bufio.NewReader(f))
			if err != nil {
				t.Fatal(err)
			}
			var parsed []int64
			for {
				ev, err := xr.ReadEvent()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if ev.Kind() != xtrace.EventSync && ev.Kind() != xtrace.EventStackSample {
					parsed = append(parsed, int64(ev.Time()))
				}
			}
			slices.Sort(wire)
			slices.Sort(parsed)
			moved := 0
			i := 0
			for _, p := range parsed {
				for i < len(wire) && wire[i] < p {
					i++
				}
				if i < len(wire) && wire[i] == p {
					i++
					continue
				}
				moved++
			}
			t.Logf("%d wire events, %d parsed, %d parsed at a time no wire event has (%.2f%%)", len(wire), len(parsed), moved, 100*float64(moved)/float64(len(parsed)))
		})
	}
}
