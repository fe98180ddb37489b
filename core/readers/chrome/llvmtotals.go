package chrome

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// llvmTotalsSkipped is what the notes call the totals dropLLVMTotals drops.
const llvmTotalsSkipped = `LLVM time-trace totals ("Total <name>" complete events at ts 0, one per thread of its own: sums over the run, not intervals)`

// dropLLVMTotals drops the totals LLVM's time profiler (clang and flang
// -ftime-trace, lld --time-trace, MLIR's timing) writes after the events
// of the run: for each name, one complete event "Total <name>" at ts 0
// lasting the sum of the name's outermost intervals, each on a thread of
// its own past the highest tid in use, nothing else on it. They are a
// table drawn as a timeline, not intervals: kept, they added a thread per
// name and each name's time a second time (a clang run's profile was led
// by "Total ExecuteCompiler", "Total Backend", "Total Optimizer", more
// than half the time in all), and their sums exceed the run when threads
// worked at once. A thread is one of them only if it holds that single
// event and nothing else, and its name is that of an event on another
// thread of the process that is not a total: another producer's
// "Total ..." interval stays.
func (c *collector) dropLLVMTotals() {
	const prefix = "Total "
	var candidates []int32
	for ti := range c.threads {
		t := &c.threads[ti]
		if t.slices.len() != 1 || t.marks.len() != 0 || t.name != none {
			continue
		}
		s := t.slices.at(0)
		if s.start != 0 || s.end == openEnd || !t.timed || t.last != s.end || s.cat != none {
			continue
		}
		if !strings.HasPrefix(c.strs.str(s.name), prefix) {
			continue
		}
		candidates = append(candidates, int32(ti))
	}
	if len(candidates) == 0 {
		return
	}
	// Nothing else may be on a total's thread: no instant, no flow point.
	isCandidate := make(map[int32]bool, len(candidates))
	for _, ti := range candidates {
		isCandidate[ti] = true
	}
	for i := range c.instants {
		if in := &c.instants[i]; in.scope == 't' && isCandidate[in.owner] {
			delete(isCandidate, in.owner)
		}
	}
	for n, i := c.flows.len(), 0; i < n; i++ {
		delete(isCandidate, c.flows.at(i).thread)
	}
	// The names of the intervals each process holds elsewhere, and its
	// highest numeric tid.
	named := map[[2]int32]bool{} // (process, name)
	maxTid := map[int32]int64{}
	for ti := range c.threads {
		if isCandidate[int32(ti)] {
			continue
		}
		t := &c.threads[ti]
		if tid, err := strconv.ParseInt(c.strs.str(t.key), 10, 64); err == nil {
			if m, ok := maxTid[t.proc]; !ok || tid > m {
				maxTid[t.proc] = tid
			}
		}
		for n, i := t.slices.len(), 0; i < n; i++ {
			named[[2]int32{t.proc, t.slices.at(i).name}] = true
		}
	}
	// LLVM numbers the totals' threads on from the highest tid in use,
	// longest total first. The names of the ones shorter than the
	// granularity (-ftime-trace-granularity, 500 µs by default) have no
	// interval: one total naming an interval of the process tells the
	// rest.
	byProc := map[int32][]int32{}
	for _, ti := range candidates {
		if isCandidate[ti] {
			byProc[c.threads[ti].proc] = append(byProc[c.threads[ti].proc], ti)
		}
	}
	dropped := map[int32]bool{}
	for proc, run := range byProc {
		next, ok := maxTid[proc]
		if !ok {
			continue
		}
		tids := make([]int64, len(run))
		for k, ti := range run {
			tids[k], _ = strconv.ParseInt(c.strs.str(c.threads[ti].key), 10, 64)
		}
		order := make([]int, len(run))
		for k := range order {
			order[k] = k
		}
		slices.SortFunc(order, func(a, b int) int { return cmp.Compare(tids[a], tids[b]) })
		names, longest := false, trace.Time(math.MaxInt64)
		whole := true
		for _, k := range order {
			t := &c.threads[run[k]]
			s := t.slices.at(0)
			if next++; tids[k] != next || s.end > longest {
				whole = false
				break
			}
			longest = s.end
			rest := strings.TrimPrefix(c.strs.str(s.name), prefix)
			if id, ok := c.strs.Lookup(rest); ok && named[[2]int32{proc, id}] {
				names = true
			}
		}
		if whole && names {
			for _, ti := range run {
				dropped[ti] = true
			}
		}
	}
	if len(dropped) == 0 {
		return
	}
	for ti := range dropped {
		c.threads[ti].slices = chunks[slice]{}
		c.threads[ti].timed = false
	}
	for pi := range c.procs {
		p := &c.procs[pi]
		kept := p.threads[:0]
		for _, ti := range p.threads {
			if !dropped[ti] {
				kept = append(kept, ti)
			}
		}
		p.threads = kept
	}
	c.notes.skip(llvmTotalsSkipped, int64(len(dropped)))
	// The trace ends where what remains ends: a total ends at the sum of
	// its name's intervals, past the run when threads worked at once.
	c.last, c.timed = c.lastOff, c.timedOff
	for ti := range c.threads {
		if t := &c.threads[ti]; t.timed && (!c.timed || t.last > c.last) {
			c.last, c.timed = t.last, true
		}
	}
	if !c.timed {
		c.first, c.last = 0, 0
	}
}
