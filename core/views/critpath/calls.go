package critpath

import (
	"cmp"
	"slices"
	"sort"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/mpi"
)

// run is what the critical path reads of a message-passing run: a
// mpi.Run's resources, collectives and names, and its calls, which are
// either the Run's own (FromRun) or each resource's spool of them from
// mpi.Builder.Blocks (an Accumulator): those are never all in memory,
// and are reached a chunk at a time (callReader).
type run struct {
	Resources   []mpi.Resource
	Collectives []mpi.Collective
	Names       []string
	Start, End  trace.Time
	NumMessages int
	// held are the calls of a Run; spooled those of Blocks, by resource.
	held    [][]mpi.Call
	spooled []spooledCalls
	// lastInit and lastFinalize are the index of each resource's last
	// MPI_Init and MPI_Finalize, -1 for none: found as the spooled calls
	// are indexed (nil for held ones), not by reading them back (a trace
	// without MPI_Finalize would be read back whole to find none).
	lastInit, lastFinalize []int32
	// memberTimes are the times of the collectives' members' calls, in
	// the order of the collectives and their members (that of the one
	// array of all their Members): gathered as the spooled calls are
	// indexed, for the wait states, which then let them go (nil for held
	// calls, read where they are).
	memberTimes []callTimes
	// synced are the collectives that synchronised all their members
	// (synchronising), found while memberTimes are held, for the delay
	// costs, which would read every member's call back.
	synced []int32
}

// membersTimes returns the times of the calls of members m, which begin
// at off among all the collectives' members: in memberTimes while the
// run holds them, else read into buf.
func (r *run) membersTimes(rd *callReader, m []mpi.CallRef, off int, buf *[]callTimes) []callTimes {
	if r.memberTimes != nil {
		return r.memberTimes[off : off+len(m)]
	}
	*buf = (*buf)[:0]
	for _, ref := range m {
		c := rd.call(ref)
		*buf = append(*buf, callTimes{c.Enter, c.Leave})
	}
	return *buf
}

// spooledCalls are a resource's calls in a spool, and where to find
// them: of each chunk (the non-empty ones), its index in the spool, the
// index of its first call and that call's entry; start ends with the
// number of calls.
type spooledCalls struct {
	spool *mpi.Spool[mpi.Call]
	chunk []int
	start []int32
	enter []trace.Time
}

// callTimes are a call's entry and leave.
type callTimes struct{ enter, leave trace.Time }

// fromMPIRun is the run of a mpi.Run held in memory.
func fromMPIRun(r *mpi.Run) *run {
	return &run{Resources: r.Resources, Collectives: r.Collectives, Names: r.Names, Start: r.Start, End: r.End,
		NumMessages: max(r.NumMessages, len(r.Messages)), held: r.Calls}
}

// lastInits returns the index of each resource's last call of the
// operation "init" (ops: the operation of each name), -1 for none.
func (r *run) lastInits(ops []string) []int32 {
	if r.lastInit != nil {
		return r.lastInit
	}
	out := make([]int32, len(r.Resources))
	for res := range out {
		out[res] = -1
		i := int32(0)
		r.each(int32(res), func(c *mpi.Call) {
			if ops[c.Name] == "init" {
				out[res] = i
			}
			i++
		})
	}
	return out
}

// lastFinalizeOf returns the index of resource res's last call of the
// operation "finalize" (ops: the operation of each name), -1 for none.
func (r *run) lastFinalizeOf(rd *callReader, ops []string, res int32) int32 {
	if r.lastFinalize != nil {
		return r.lastFinalize[res]
	}
	return lastNamed(r, rd, ops, res, "finalize")
}

// count returns the number of calls of resource res.
func (r *run) count(res int32) int {
	if r.held != nil {
		return len(r.held[res])
	}
	s := &r.spooled[res]
	return int(s.start[len(s.start)-1])
}

// each calls visit with every call of resource res in order; it may run
// on several goroutines at once (each reads the spool on its own). It
// stops early when the spill file cannot be read (the spill's Err).
func (r *run) each(res int32, visit func(*mpi.Call)) {
	if r.held != nil {
		for j := range r.held[res] {
			visit(&r.held[res][j])
		}
		return
	}
	rd := r.spooled[res].spool.Reader()
	for c, ok := rd.Next(); ok; c, ok = rd.Next() {
		visit(c)
	}
}

// indexCalls notes where the chunks of a resource's spooled calls begin,
// from the spool's chunk sizes and the calls themselves (the spool's
// records, still in memory), without reading the spool back.
func indexCalls(spool *mpi.Spool[mpi.Call], calls []mpi.Call) spooledCalls {
	s := spooledCalls{spool: spool}
	n := int32(0)
	for k := range spool.Chunks() {
		size := spool.ChunkLen(k)
		if size == 0 {
			continue
		}
		s.chunk = append(s.chunk, k)
		s.start = append(s.start, n)
		s.enter = append(s.enter, calls[n].Enter)
		n += int32(size)
	}
	s.start = append(s.start, n)
	return s
}

// callReader reaches any call of a run: each resource keeps the two
// chunks of its spooled calls it read last, as the wait states (in the
// order of the links and collectives), the backward walk and the delay
// costs (backwards in time) move along each resource a step at a time.
// A reader belongs to one goroutine.
type callReader struct {
	r *run
	// By resource: the chunks read last, keyed by their index in
	// spooledCalls.start.
	cache []twoChunks[mpi.Call]
	ok    bool // false once the spill file could not be read
}

func (r *run) reader() *callReader {
	rd := &callReader{r: r, ok: true}
	if r.held == nil {
		rd.cache = make([]twoChunks[mpi.Call], len(r.spooled))
		for i := range rd.cache {
			rd.cache[i] = newTwoChunks[mpi.Call]()
		}
	}
	return rd
}

// call returns the call ref names, valid until the reader has read two
// other chunks of its resource. A call whose chunk could not be read
// back (rd.ok false, the spill's Err) is the zero call.
func (rd *callReader) call(ref mpi.CallRef) *mpi.Call {
	if rd.r.held != nil {
		return &rd.r.held[ref.Resource][ref.Call]
	}
	s, c := &rd.r.spooled[ref.Resource], &rd.cache[ref.Resource]
	j := ref.Call
	k := -1
	for _, at := range c.key {
		if at >= 0 && s.start[at] <= j && j < s.start[at+1] {
			k = at
			break
		}
	}
	if k < 0 {
		k = sort.Search(len(s.start)-1, func(i int) bool { return s.start[i+1] > j })
	}
	calls, ok := c.get(k, s.spool, s.chunk[k])
	if !ok {
		rd.ok = false
		return &mpi.Call{}
	}
	return &calls[j-s.start[k]]
}

// firstEntered returns the index of the first call of resource res
// entered at or after t, the number of its calls if none.
func (rd *callReader) firstEntered(res int32, t trace.Time) int {
	if rd.r.held != nil {
		calls := rd.r.held[res]
		return sort.Search(len(calls), func(k int) bool { return calls[k].Enter >= t })
	}
	s := &rd.r.spooled[res]
	// The last chunk whose first call was entered before t holds the
	// answer, or it is the next chunk's first call.
	k, _ := slices.BinarySearchFunc(s.enter, t, func(e, t trace.Time) int { return cmp.Compare(e, t) })
	if k == 0 {
		return 0
	}
	k--
	from, to := int(s.start[k]), int(s.start[k+1])
	return from + sort.Search(to-from, func(i int) bool {
		return rd.call(mpi.CallRef{Resource: res, Call: int32(from + i)}).Enter >= t
	})
}
