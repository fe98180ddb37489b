package otf2

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// readExtent is the oracle: the extent a full read ends the trace with.
func readExtent(t *testing.T, path string, groups []uint32) (trace.Time, trace.Time) {
	t.Helper()
	var c trace.Counter
	if err := readGroups(path, groups, &c, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	return c.Start, c.End
}

// checkProbe compares Probe with the full read, for the whole archive and
// for each of its location groups.
func checkProbe(t *testing.T, path string) {
	t.Helper()
	groups, err := locationGroups(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, sel := range append([][]uint32{nil}, func() (l [][]uint32) {
		for _, g := range groups {
			l = append(l, []uint32{g})
		}
		return
	}()...) {
		start, end, ok := probe(path, sel)
		if !ok {
			t.Fatalf("groups %v: the probe cannot tell", sel)
		}
		ws, we := readExtent(t, path, sel)
		if start != ws || end != we {
			t.Fatalf("groups %v: probe %d-%d, read %d-%d", sel, start, end, ws, we)
		}
	}
}

func TestProbeCorpus(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..", "shared", "traces")
	var archives []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".otf2" {
			archives = append(archives, p)
		}
		return nil
	})
	if len(archives) == 0 {
		t.Skip("corpus absent: no OTF2 archive under " + root)
	}
	for _, p := range archives {
		t.Run(p, func(t *testing.T) { checkProbe(t, p) })
	}
}

func TestProbeSynthetic(t *testing.T) {
	const chunk = 64
	// Records across chunks, an attribute list, an unknown record before
	// the first timestamp of a chunk; the second location ends within the
	// clock's length (which then ends the trace) or beyond it.
	c1, c2, c3 := &enc{big: true}, &enc{big: true}, &enc{big: true}
	evTime(c1, 1003)
	evRegion(c1, evEnter, regionMain)
	evTime(c2, 1010)
	c2.rec(attrList, false, func(r *enc) { r.u32(1).u32(0).u8(typeUint64).u64(4096) })
	evRegion(c2, evEnter, regionWork)
	c3.rec(200, true, func(r *enc) { r.u64(1).u64(2) })
	evTime(c3, 1020)
	evRegion(c3, evLeave, regionWork)
	evRegion(c3, evLeave, regionMain)
	late := func(last uint64) *enc {
		l := &enc{big: true}
		evTime(l, 1005)
		evRegion(l, evEnter, regionMain)
		evTime(l, last)
		evRegion(l, evLeave, regionMain)
		evTime(l, last+50) // a timestamp no record follows: not the end
		return l
	}
	for name, tc := range map[string]struct {
		last               uint64
		wantStart, wantEnd trace.Time
	}{
		"clock length ends": {1040, 0, 100},
		"records end":       {1234, 0, 234},
	} {
		t.Run(name, func(t *testing.T) {
			anchor := testArchive{big: true, chunkEvents: chunk, defs: baseDefs(true).b,
				locations: map[uint64][]byte{
					0: chunked(true, chunk, c1.b, c2.b, c3.b),
					1: chunked(true, chunk, late(tc.last).b),
				}}.write(t, t.TempDir())
			checkProbe(t, anchor)
			if s, e, _ := probe(anchor, nil); s != tc.wantStart || e != tc.wantEnd {
				t.Fatalf("probe %d-%d, want %d-%d", s, e, tc.wantStart, tc.wantEnd)
			}
		})
	}
	t.Run("first and last chunks only", func(t *testing.T) {
		// Every chunk starts with a timestamp: the walk reads the first
		// chunk and the last ones; the last chunk holds a timestamp and no
		// event record, the one before it the last record (at 1080).
		var chunks [][]byte
		for i, step := range []struct {
			t    uint64
			kind uint8
			reg  uint32
		}{{1003, evEnter, regionMain}, {1010, evEnter, regionWork}, {1020, evLeave, regionWork}, {1080, evLeave, regionMain}} {
			e := &enc{}
			evTime(e, step.t)
			evRegion(e, step.kind, step.reg)
			if i == 1 {
				evTime(e, 1015) // a later timestamp inside a middle chunk
				evRegion(e, evEnter, regionMain)
				evTime(e, 1016)
				evRegion(e, evLeave, regionMain)
			}
			chunks = append(chunks, e.b)
		}
		tail := &enc{}
		evTime(tail, 1150)
		chunks = append(chunks, tail.b)
		anchor := testArchive{chunkEvents: chunk, defs: baseDefs(false).b,
			locations: map[uint64][]byte{0: chunked(false, chunk, chunks...)}}.write(t, t.TempDir())
		checkProbe(t, anchor)
		if s, e, _ := probe(anchor, nil); s != 0 || e != 100 {
			t.Fatalf("probe %d-%d, want 0-100", s, e)
		}
		// Beyond the clock's length: the last record ends the trace.
		late := &enc{}
		evTime(late, 1200)
		evRegion(late, evEnter, regionWork)
		evRegion(late, evLeave, regionWork)
		chunks[len(chunks)-1] = late.b
		anchor = testArchive{chunkEvents: chunk, defs: baseDefs(false).b,
			locations: map[uint64][]byte{0: chunked(false, chunk, chunks...)}}.write(t, t.TempDir())
		checkProbe(t, anchor)
		if s, e, _ := probe(anchor, nil); s != 0 || e != 200 {
			t.Fatalf("probe %d-%d, want 0-200", s, e)
		}
	})
	t.Run("before the offset", func(t *testing.T) {
		// Records before the clock's offset start the trace before 0.
		l := &enc{}
		evTime(l, 990)
		evRegion(l, evEnter, regionMain)
		evTime(l, 995)
		evRegion(l, evLeave, regionMain)
		anchor := testArchive{defs: baseDefs(false).b,
			locations: map[uint64][]byte{0: chunked(false, 0, l.b)}}.write(t, t.TempDir())
		checkProbe(t, anchor)
		if s, e, _ := probe(anchor, nil); s != -10 || e != 100 {
			t.Fatalf("probe %d-%d, want -10-100", s, e)
		}
	})
	t.Run("clock corrections", func(t *testing.T) {
		// Offsets +10 at 1000, -10 at 1100 (TestLocalDefinitions): the last
		// record, at 1060, moves to 1058; the first, at 1000, to 1010.
		local := &enc{}
		local.rec(defClockOffset, false, func(r *enc) { r.u64Full(1000).i64(10).u64Full(0) })
		local.rec(defClockOffset, false, func(r *enc) { r.u64Full(1100).i64(-10).u64Full(0) })
		l := &enc{}
		evTime(l, 1000)
		evRegion(l, evEnter, regionMain)
		evTime(l, 1260)
		evRegion(l, evLeave, regionMain)
		anchor := testArchive{defs: baseDefs(false).b,
			locations: map[uint64][]byte{0: chunked(false, 0, l.b)},
			localDefs: map[uint64][]byte{0: chunked(false, 0, local.b)}}.write(t, t.TempDir())
		checkProbe(t, anchor)
		// 1260 is past the last offset: the interval is extended, -10 at
		// 1100 plus -0.2 per tick for 160 ticks: 1260-10-32 = 1218.
		if s, e, _ := probe(anchor, nil); s != 0 || e != 218 {
			t.Fatalf("probe %d-%d, want 0-218", s, e)
		}
	})
	t.Run("corrections that reverse time", func(t *testing.T) {
		// A correction steeper than the clock: corrected timestamps
		// decrease, the merge would not end with the latest record, and the
		// probe does not guess.
		local := &enc{}
		local.rec(defClockOffset, false, func(r *enc) { r.u64Full(1000).i64(0).u64Full(0) })
		local.rec(defClockOffset, false, func(r *enc) { r.u64Full(1010).i64(-100).u64Full(0) })
		l := &enc{}
		evTime(l, 1000)
		evRegion(l, evEnter, regionMain)
		evTime(l, 1005)
		evRegion(l, evLeave, regionMain)
		anchor := testArchive{defs: baseDefs(false).b,
			locations: map[uint64][]byte{0: chunked(false, 0, l.b)},
			localDefs: map[uint64][]byte{0: chunked(false, 0, local.b)}}.write(t, t.TempDir())
		if _, _, ok := probe(anchor, nil); ok {
			t.Fatal("the probe guessed on time going backwards")
		}
	})
	t.Run("truncated", func(t *testing.T) {
		l := &enc{}
		evTime(l, 1000)
		evRegion(l, evEnter, regionMain)
		data := chunked(false, 0, l.b)
		anchor := testArchive{defs: baseDefs(false).b,
			locations: map[uint64][]byte{0: data[:len(data)-3]}}.write(t, t.TempDir())
		if _, _, ok := probe(anchor, nil); ok {
			t.Fatal("the probe guessed on a truncated file")
		}
	})
}
