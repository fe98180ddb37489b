package pop

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/mpi"
)

// The replay over the resources' calls in turn, holding only the
// entries partners still wait for, gives what the replay holding every
// call's replayed entry gave (replayAllCalls, the former implementation,
// kept here as the reference), ends, times outside calls and runtime
// alike, and the same error where the calls do not pair up: on random
// runs of sends (eager and rendezvous), receives, waits, sendrecvs and
// collectives, many of which deadlock.
func TestReplayEqualsReplayOfAllCalls(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 5))
	deadlocked := 0
	for i := range 3000 {
		run := randomRun(rng)
		eager := []float64{DefaultEagerLimit, -1, 0}[i%3]
		want, wantErr := replayAllCalls(run, eager)
		got, gotErr := Replay(run, eager)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("run %d: error %v, want %v", i, gotErr, wantErr)
		}
		if wantErr != nil {
			deadlocked++
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("run %d: %+v, want %+v", i, *got, *want)
		}
	}
	t.Logf("%d of 3000 random runs deadlocked", deadlocked)
	// Both outcomes are exercised.
	if deadlocked < 300 || deadlocked > 2700 {
		t.Errorf("%d of 3000 random runs deadlocked", deadlocked)
	}
}

// randomRun returns a run of 1 to 6 resources making 0 to 30 calls each,
// with messages between random calls and collectives over random members.
func randomRun(rng *rand.Rand) *mpi.Run {
	n := 1 + rng.IntN(6)
	run := &mpi.Run{Names: []string{"MPI_Call"}, Comms: []string{""}, Start: trace.Time(rng.IntN(5)) - 2}
	classes := []mpi.Class{mpi.Local, mpi.Send, mpi.Recv, mpi.SendRecv, mpi.Wait}
	var collective [][]mpi.CallRef
	for r := range n {
		at := run.Start
		var calls []mpi.Call
		k := 0
		for range rng.IntN(31) {
			at += trace.Time(rng.IntN(4))
			c := mpi.Call{Enter: at, Class: classes[rng.IntN(len(classes))], Coll: -1}
			if rng.IntN(5) == 0 {
				// The k-th collective of this resource.
				c.Class = mpi.AllToAll
				if k == len(collective) {
					collective = append(collective, nil)
				}
				c.Coll = int32(k)
				collective[k] = append(collective[k], mpi.CallRef{Resource: int32(r), Call: int32(len(calls))})
				k++
			}
			at += trace.Time(rng.IntN(3))
			c.Leave = at
			calls = append(calls, c)
		}
		run.Calls = append(run.Calls, calls)
		run.Resources = append(run.Resources, mpi.Resource{Path: fmt.Sprint("rank ", r), Last: at + trace.Time(rng.IntN(3))})
	}
	for _, members := range collective {
		run.Collectives = append(run.Collectives, mpi.Collective{Class: mpi.AllToAll, Members: members, Root: -1})
	}
	for range rng.IntN(4 * n) {
		m := mpi.Message{From: int32(rng.IntN(n)), To: int32(rng.IntN(n)), Size: []float64{8, 1 << 20}[rng.IntN(2)], SendCall: -1, RecvCall: -1}
		if c := len(run.Calls[m.From]); c > 0 && rng.IntN(10) > 0 {
			m.SendCall = int32(rng.IntN(c))
		}
		if c := len(run.Calls[m.To]); c > 0 && rng.IntN(10) > 0 {
			m.RecvCall = int32(rng.IntN(c))
		}
		run.Messages = append(run.Messages, m)
	}
	run.NumMessages = len(run.Messages)
	return run
}

// replayAllCalls is the ideal replay as it was computed before: every
// call's replayed entry held (entered), and each call's waits placed in
// lists by call. It is the reference of the replay over the resources in
// turn.
func replayAllCalls(run *mpi.Run, eagerLimit float64) (*Ideal, error) {
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

// unknown marks a call replayAllCalls has not entered yet.
const unknown trace.Time = -1 << 63
