package moments

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/paje"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// generatedTrace returns a synthetic Pajé trace: ranks processes, each
// alternating a "compute" state (set at depth 0) with MPI calls pushed
// over it, some of which nest a second call, like a traced MPI program.
// Dates never decrease through the file.
func generatedTrace(ranks, steps int) []byte {
	var b bytes.Buffer
	b.WriteString(pajeHeader)
	b.WriteString("0 P 0 Proc\n2 S P State\n")
	for r := range ranks {
		fmt.Fprintf(&b, "6 0 r%d P 0 r%d\n", r, r)
	}
	calls := []string{"MPI_Send", "MPI_Recv", "MPI_Wait", "MPI_Allreduce"}
	seed := uint64(42)
	next := func(n uint64) int64 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int64((seed >> 33) % n)
	}
	type event struct {
		at   int64 // microseconds
		rank int
		what string // event id and trailing fields
	}
	var step []event
	start := int64(0)
	for range steps {
		step = step[:0]
		end := start
		for r := range ranks {
			now := start + 1 + next(50)
			add := func(what string) { step = append(step, event{now, r, what}) }
			add("11 %s S r%d compute")
			now += 1 + next(200)
			add("12 %s S r%d " + calls[next(4)])
			if next(4) == 0 {
				now += 1 + next(20)
				add("12 %s S r%d " + calls[next(4)])
				now += 1 + next(20)
				add("13 %s S r%d")
			}
			now += 1 + next(30)
			add("13 %s S r%d")
			end = max(end, now)
		}
		slices.SortStableFunc(step, func(x, y event) int { return cmp.Compare(x.at, y.at) })
		for _, e := range step {
			fmt.Fprintf(&b, e.what+"\n", fmt.Sprintf("%d.%06d", e.at/1e6, e.at%1e6), e.rank)
		}
		start = end
	}
	return b.Bytes()
}

var benchTrace = sync.OnceValue(func() []byte { return generatedTrace(256, 1000) })

func benchmarkRead(b *testing.B, sink func() trace.Sink) {
	data := benchTrace()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s := sink()
		if err := paje.Decode(bytes.NewReader(data), "bench.trace", int64(len(data)), s, paje.Options{}); err != nil {
			b.Fatal(err)
		}
		if acc, ok := s.(*Accumulator); ok {
			if _, err := acc.Result(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkReadOnly(b *testing.B) {
	benchmarkRead(b, func() trace.Sink { return &trace.Counter{} })
}

func benchmarkMoments(b *testing.B, opt Options) {
	benchmarkRead(b, func() trace.Sink {
		acc, err := New(opt)
		if err != nil {
			b.Fatal(err)
		}
		return acc
	})
}

// Every state counts: nested states are skipped.
func BenchmarkReadMoments(b *testing.B) { benchmarkMoments(b, Options{}) }

// MPI time only, with innermost nesting and per-state sums: every state
// goes through the nesting levels.
func BenchmarkReadMomentsByState(b *testing.B) {
	benchmarkMoments(b, Options{Select: AllBut, Values: []string{"compute"}, ByState: true})
}

func BenchmarkReadMomentsUnion(b *testing.B) {
	benchmarkMoments(b, Options{Select: AllBut, Values: []string{"compute"}, Nesting: Union})
}

func BenchmarkSumsAdd(b *testing.B) {
	var s Sums
	t := epoch
	for b.Loop() {
		s.Add(t, t+1234)
		t += 5000
	}
}

func BenchmarkSumsMerge(b *testing.B) {
	var x, y Sums
	x.Add(epoch, epoch+1000)
	y.Add(epoch+5000, epoch+7000)
	for b.Loop() {
		z := x
		z.Merge(y)
	}
}

// The generated trace is itself checked, so the benchmarks measure what
// they claim: every rank has the expected number of states.
func TestGeneratedTrace(t *testing.T) {
	data := generatedTrace(4, 50)
	tr := trace.New("gen")
	if err := paje.Decode(bytes.NewReader(data), "gen", 0, tr, paje.Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := Compute(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Resources) != 4 {
		t.Fatalf("%d resources", len(r.Resources))
	}
	// All states count: each rank is busy from its first state to the end.
	for _, id := range r.Resources {
		first := trace.Time(-1)
		for _, s := range tr.States.All() {
			if s.Container == id && (first < 0 || s.Start < first) {
				first = s.Start
			}
		}
		checkExact(t, r.Containers[id].Name, r.Busy[id], []interval{{first, tr.End}})
	}
}
