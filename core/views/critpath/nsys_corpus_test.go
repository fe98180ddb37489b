package critpath

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestNsysSyncEdges checks the synchronisation edges of the graph built
// from the corpus's Nsight Systems exports against SQL on the export:
// each Stream Sync record (syncType 3) whose cudaStreamSynchronize call
// and whose stream's previous operation (the last launched operation of
// its process, context and stream to start before the record ends) are
// known gives exactly one edge, from that operation's end to the call's
// end. (The exports' event waits have no CUDA event records: they give no
// edge, their calls the host-side stand-in, which TestNsysSyncEdges
// leaves out by keeping the edges that end at a Stream Sync's call.)
func TestNsysSyncEdges(t *testing.T) {
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Skip("sqlite3 is not installed: it is the oracle")
	}
	for _, name := range []string{"nsys/h100_2gpu_1s.sqlite", "nsys/mfu_2gpu_before.sqlite"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("..", "..", "..", "..", "shared", "traces", name)
			tr := read(t, path, "nsys")
			out, err := exec.Command("sqlite3", "-readonly", path, `
WITH calls AS (SELECT globalTid >> 24 AS p, correlationId AS c, start, end FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE end >= start),
ops AS (SELECT globalPid >> 24 AS p, contextId AS x, streamId AS s, start, end, correlationId AS c FROM CUPTI_ACTIVITY_KIND_KERNEL
	UNION ALL SELECT globalPid >> 24, contextId, streamId, start, end, correlationId FROM CUPTI_ACTIVITY_KIND_MEMCPY
	UNION ALL SELECT globalPid >> 24, contextId, streamId, start, end, correlationId FROM CUPTI_ACTIVITY_KIND_MEMSET),
launched AS (SELECT o.* FROM ops o JOIN calls k ON k.p = o.p AND k.c = o.c)
SELECT coalesce((SELECT o.end FROM launched o WHERE o.p = y.globalPid >> 24 AND o.x = y.contextId AND o.s = y.streamId
	AND o.start < y.end ORDER BY o.start DESC LIMIT 1), '-') || ' ' || k.end
FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION y JOIN calls k ON k.p = y.globalPid >> 24 AND k.c = y.correlationId
WHERE y.syncType = 3 AND y.end >= y.start`).CombinedOutput()
			if err != nil {
				t.Fatalf("sqlite3: %v\n%s", err, out)
			}
			var want []string
			callEnds := map[string]bool{}
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				op, call, _ := strings.Cut(l, " ")
				callEnds[call] = true
				if op != "-" { // a stream that had no operation yet: no edge
					want = append(want, l)
				}
			}
			slices.Sort(want)
			a := New(Options{})
			tr.Replay(a)
			gr, semantics, err := a.graph.build()
			if err != nil || semantics != HTA {
				t.Fatalf("%s: %v", semantics, err)
			}
			var got []string
			for _, e := range gr.edges {
				to := strconv.FormatInt(int64(gr.nodes[e.to].ts), 10)
				if e.kind == EdgeSyncWait && callEnds[to] {
					got = append(got, strconv.FormatInt(int64(gr.nodes[e.from].ts), 10)+" "+to)
				}
			}
			slices.Sort(got)
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Errorf("sync edges (operation end, call end):\n%v\nwant (SQL)\n%v", got, want)
			}
			t.Logf("%d Stream Sync edges", len(got))
		})
	}
}
