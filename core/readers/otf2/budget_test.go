package otf2

import (
	"errors"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestDefinitionsAskTheBudget: definitions whose records declare many
// group members or ID map entries (each a byte in the file, 8 in memory)
// are weighed against the user's memory budget, decoded; past it the read
// stops with the budget's error, naming the definition file.
func TestDefinitionsAskTheBudget(t *testing.T) {
	const members = 250_000 // 8 bytes each once decoded: 2 MB from 250 KB
	global := announcingDefs()
	defGroupRec(global, 9, groupTypeCommLocations, paradigmMPI, make([]uint64, members)...)
	local := &enc{}
	local.rec(defMappingTable, false, func(r *enc) {
		r.u8(mapRegion).u64(members).u8(0)
		for range members {
			r.u64(regionMain)
		}
	})
	events := map[uint64][]byte{0: oneState(1000), 1: oneState(1020)}
	cases := []struct {
		name  string
		a     testArchive
		file  string
		limit int64
	}{
		{"group members", testArchive{defs: global.b, locations: events}, "traces.def", 1 << 20},
		{"ID map", testArchive{defs: announcingDefs().b, locations: events,
			localDefs: map[uint64][]byte{0: chunked(false, 1<<18, local.b), 1: emptyLocalDefs()}}, "0.def", 1 << 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			anchor := c.a.write(t, t.TempDir())
			m := &budget.Meter{Limit: c.limit}
			err := Read(anchor, trace.New(anchor), trace.ReadOptions{Hold: m.Hold})
			var fe *errs.FormatError
			var ae *errs.ArgumentError
			if !errors.As(err, &fe) || !strings.HasSuffix(fe.File, c.file) || !errors.As(err, &ae) || ae.Name != "memory_budget" {
				t.Fatalf("read under %d bytes: got %v, want the memory budget's error naming %s", c.limit, err, c.file)
			}
			// Within a budget that holds them, the same archive reads.
			m = &budget.Meter{Limit: 64 << 20}
			tr := trace.New(anchor)
			if err := Read(anchor, tr, trace.ReadOptions{Hold: m.Hold}); err != nil || tr.States.Len() != 2 {
				t.Fatalf("read under 64 MiB: %v, %d states, want 2", err, tr.States.Len())
			}
			if m.Peak() < 2*members {
				t.Errorf("held %d bytes at most during the read, want at least %d", m.Peak(), 2*members)
			}
			// The read over, its definitions are given back: a second
			// pass or the next part of a read by parts, under the same
			// meter, does not count them again.
			if m.Held() != 0 {
				t.Errorf("held %d bytes after the read, want 0", m.Held())
			}
		})
	}
}
