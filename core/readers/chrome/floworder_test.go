package chrome

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestFlowOrders checks the counting-sort orders of the flow points
// against comparison sorts on the keys they stand for, on points with few
// and many threads, flows, categories and scopes (none included), in file
// order as the collector keeps them.
func TestFlowOrders(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	phases := []byte("stf")
	for trial := range 300 {
		n := r.IntN(2000) + 1
		threads, strs := r.IntN(6)+1, r.IntN(300)+2
		c := &collector{strs: newInterner(), threads: make([]thread, threads)}
		for i := range strs {
			c.strs.idOf(string(rune('a'+i%26)) + string(rune('A'+i/26)))
		}
		key := func(spread int) int32 { return int32(r.IntN(min(spread, strs)+1)) - 1 } // none to strs-1
		spread := []int{1, 3, strs}[trial%3]
		if trial%7 == 6 { // in several chunks
			n += 2*chunkLen + r.IntN(2000)
		}
		var points []flowPoint
		for i := range n {
			points = append(points, flowPoint{ts: trace.Time(r.IntN(50)), cat: key(spread), id: key(strs), scope: key(spread),
				seq: int32(i + 1), thread: int32(r.IntN(threads)), phase: phases[r.IntN(3)]})
		}
		if trial%5 == 0 { // a thread's points in time order, as writers put them
			slices.SortStableFunc(points, func(a, b flowPoint) int { return cmp.Compare(a.ts, b.ts) })
			for i := range points {
				points[i].seq = int32(i + 1)
			}
		}
		c.flows = *chunksOf(points)
		check := func(what string, order []int32, compare func(a, b flowPoint) int) {
			want := slices.Clone(points)
			slices.SortFunc(want, compare)
			for k, i := range order {
				if *c.flows.at(int(i)) != want[k] {
					t.Fatalf("trial %d: %s order differs from a sort at %d of %d", trial, what, k, n)
				}
			}
		}
		check("thread", c.flowsByThread(), func(a, b flowPoint) int {
			if r := cmp.Compare(a.thread, b.thread); r != 0 {
				return r
			}
			return compareInThread(&a, &b)
		})
		check("flow", c.flowsByKey(), func(a, b flowPoint) int {
			for _, r := range [...]int{cmp.Compare(a.cat, b.cat), cmp.Compare(a.id, b.id), cmp.Compare(a.scope, b.scope)} {
				if r != 0 {
					return r
				}
			}
			return compareInFlow(&a, &b)
		})
	}
}
