package pop

import (
	"errors"
	"fmt"
	"math"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/mpi"
)

// errUnpaired is why a replay cannot finish: a call waits for partners
// that never come, as in a trace cut out of a longer run (Paraver's
// cutter, a run killed before its end). The other factors do not need
// the replay, so POP reports them without it (Run.NoIdealReason).
var errUnpaired = errors.New("the trace's calls do not pair up")

// DefaultEagerLimit is the size above which a message is sent by
// rendezvous in the ideal replay: Dimemas' -S 32k, which BSC's
// modelfactors.py and pypop run it with.
const DefaultEagerLimit = 32 * 1024

// unknown marks a call the replay has not entered yet.
const unknown trace.Time = math.MinInt64

// Ideal is the outcome of the ideal-network replay.
type Ideal struct {
	// Runtime is the replayed run's duration, from the trace's start to
	// the last resource's end.
	Runtime trace.Time
	// Ends holds each resource's end in the replay (from the trace's
	// start), Outside its time outside MPI calls (the CPU bursts the
	// replay keeps, from the trace's start to its last record).
	Ends, Outside []trace.Time
}

// Replay runs the trace again on an ideal network, as Dimemas does with
// the configuration BSC's model factors use (latency 0, unlimited
// bandwidth and links, collectives of no cost): every interval of a
// resource outside MPI calls keeps its measured duration, from the
// trace's start; an MPI call costs nothing but the wait for its
// partners:
//
//   - a call that completes receipts (MPI_Recv, MPI_Wait*, MPI_Sendrecv)
//     ends no earlier than the replayed entry of the calls that sent its
//     messages;
//   - a blocking send of more than eagerLimit bytes (rendezvous) ends no
//     earlier than the replayed entry of the call that receives it;
//     smaller ones are eager;
//   - a collective ends, for all its members, when the last one enters it
//     (whatever its root);
//   - any other call ends where it begins.
//
// The replay advances every resource as far as its partners allow, until
// all have ended; a trace whose waits cannot all be met (calls that pair
// up wrongly) is an error.
func Replay(run *mpi.Run, eagerLimit float64) (*Ideal, error) {
	n := len(run.Resources)
	// What each call waits for, gathered once: the messages it completes
	// and the rendezvous it sends, as lists by call (waits[r][first[r][j]:
	// first[r][j+1]] for call j of r). Two passes over the messages, one
	// counting and one placing, keep no list of the pairs besides.
	type wait struct{ res, call int32 } // a partner call whose replayed entry bounds this call's end
	pairs := func(visit func(waiting, partner wait)) {
		for _, m := range run.Messages {
			if m.SendCall < 0 || m.RecvCall < 0 {
				continue
			}
			if run.Calls[m.To][m.RecvCall].Class.Completes() {
				visit(wait{m.To, m.RecvCall}, wait{m.From, m.SendCall})
			}
			if c := run.Calls[m.From][m.SendCall].Class; (c == mpi.Send || c == mpi.SendRecv) && m.Size > eagerLimit {
				visit(wait{m.From, m.SendCall}, wait{m.To, m.RecvCall})
			}
		}
	}
	// first[r][j] counts call j's waits, then (added up) ends its list;
	// placing each wait at the end of its list less one leaves first[r][j]
	// at the list's start.
	first := make([][]int32, n)
	for r := range n {
		first[r] = make([]int32, len(run.Calls[r])+1)
	}
	pairs(func(w, _ wait) { first[w.res][w.call]++ })
	waits := make([][]wait, n)
	for r := range n {
		for j := 1; j < len(first[r]); j++ {
			first[r][j] += first[r][j-1]
		}
		waits[r] = make([]wait, first[r][len(first[r])-1])
	}
	pairs(func(w, partner wait) {
		first[w.res][w.call]--
		waits[w.res][first[w.res][w.call]] = partner
	})
	// entered[r][j]: replayed entry of call j of r, known once r got there.
	entered := make([][]trace.Time, n)
	pos := make([]int, n)
	now := make([]trace.Time, n)  // r's replayed clock
	prev := make([]trace.Time, n) // the measured end of r's previous call
	outside := make([]trace.Time, n)
	// Per collective: members entered so far and the latest entry.
	collIn := make([]int32, len(run.Collectives))
	collLatest := make([]trace.Time, len(run.Collectives))
	for r := range n {
		entered[r] = make([]trace.Time, len(run.Calls[r]))
		for j := range entered[r] {
			entered[r][j] = unknown
		}
		now[r], prev[r] = run.Start, run.Start
	}
	known := func(w wait) bool { return entered[w.res][w.call] != unknown }
	done := 0
	for r := range n {
		if len(run.Calls[r]) == 0 {
			done++
		}
	}
	for progress := true; progress && done < n; {
		progress = false
		for r := range n {
			calls := run.Calls[r]
			for pos[r] < len(calls) {
				j := pos[r]
				c := &calls[j]
				if entered[r][j] == unknown {
					burst := c.Enter - prev[r]
					outside[r] += burst
					now[r] += burst
					entered[r][j] = now[r]
					if c.Coll >= 0 {
						collIn[c.Coll]++
						collLatest[c.Coll] = max(collLatest[c.Coll], now[r])
					}
					progress = true
				}
				end, ready := now[r], true
				for _, w := range waits[r][first[r][j]:first[r][j+1]] {
					if !known(w) {
						ready = false
						break
					}
					end = max(end, entered[w.res][w.call])
				}
				if ready && c.Coll >= 0 {
					coll := &run.Collectives[c.Coll]
					if int(collIn[c.Coll]) < len(coll.Members) {
						ready = false
					} else {
						end = max(end, collLatest[c.Coll])
					}
				}
				if !ready {
					break
				}
				now[r], prev[r] = end, c.Leave
				pos[r]++
				progress = true
				if pos[r] == len(calls) {
					done++
				}
			}
		}
	}
	if done < n {
		for r := range n {
			if j := pos[r]; j < len(run.Calls[r]) {
				c := &run.Calls[r][j]
				return nil, fmt.Errorf("pop: the ideal replay cannot go on: %s waits forever in %s entered at %s "+
					"(its partners never reach the call that would release it: %w)",
					run.Resources[r].Path, run.Name(c), c.Enter, errUnpaired)
			}
		}
	}
	id := &Ideal{Ends: make([]trace.Time, n), Outside: outside}
	for r := range n {
		tail := max(run.Resources[r].Last-prev[r], 0)
		id.Outside[r] += tail
		id.Ends[r] = now[r] + tail
		id.Runtime = max(id.Runtime, id.Ends[r]-run.Start)
	}
	return id, nil
}
