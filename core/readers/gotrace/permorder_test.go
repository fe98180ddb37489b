package gotrace

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"testing"

	xtrace "golang.org/x/exp/trace"
)

// TestParserKeepsPerMOrder checks, on every binary trace of the
// generational format, that the parser's output is a merge of the Ms'
// streams as the decoder reads them: the events the parser delivers on
// each M are that M's events in batch order, each at the decoder's time
// (the batch's time, then each delta, converted to nanoseconds and
// truncated one by one as the parser does) or later. Later is the
// parser's doing: it makes the times it delivers strictly increasing,
// moving an event whose time is not after the previous one's (of any M)
// to 1 ns after it. Which events move depends on the order the parser
// merges the Ms in, ties included: a reader that orders events per
// goroutine and per P instead cannot give these events the parser's
// times (0.05-0.2% of the events of the sample traces).
func TestParserKeepsPerMOrder(t *testing.T) {
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
			type ev struct {
				time int64
				typ  uint8
			}
			var wire []map[uint64][]ev // by generation, by M
			if err := decodeWire(br, ver, 2, func(g *wireGeneration) error {
				perM := map[uint64][]ev{}
				f := 1.0 / (float64(g.freq) / 1e9)
				for _, b := range g.batches {
					if b.kind != batchEvents {
						continue
					}
					last, t := int64(float64(b.time)*f), b.time
					events, err := b.decodeAll(g)
					if err != nil {
						return err
					}
					for _, e := range events {
						last += int64(float64(e.time-t) * f)
						t = e.time
						perM[b.m] = append(perM[b.m], ev{last, e.typ})
					}
				}
				wire = append(wire, perM)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			f.Seek(0, io.SeekStart)
			xr, err := xtrace.NewReader(bufio.NewReader(f))
			if err != nil {
				t.Fatal(err)
			}
			gen := -1
			next := map[uint64]int{}
			var checked, moved, otherM int
			for {
				e, err := xr.ReadEvent()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				switch e.Kind() {
				case xtrace.EventSync:
					if gen+1 < len(wire) {
						gen++
						next = map[uint64]int{}
					}
					continue
				case xtrace.EventStackSample:
					continue
				}
				m := uint64(e.Thread())
				i := next[m]
				evs := wire[gen][m]
				if i >= len(evs) {
					otherM++ // the parser gives the event the M of the goroutine or P it restates
					continue
				}
				w := evs[i]
				pt := int64(e.Time())
				if pt < w.time {
					t.Fatalf("generation %d, M %d, event %d: the parser's time %d is before the wire's %d", gen+1, int64(m), i, pt, w.time)
				}
				if pt != w.time {
					moved++
				}
				next[m] = i + 1
				checked++
			}
			total := 0
			for _, perM := range wire {
				for _, evs := range perM {
					total += len(evs)
				}
			}
			if checked+otherM != total {
				t.Fatalf("the parser delivered %d events, the wire has %d", checked+otherM, total)
			}
			t.Logf("%d events in per-M order, %d of them moved later, %d delivered on another M", checked, moved, otherM)
		})
	}
}
