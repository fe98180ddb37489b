package gotrace

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"testing"

	xtrace "golang.org/x/exp/trace"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestParkedGoroutinesNamed reads a run of testdata/gen/gopool whose
// watcher goroutine, and a runtime one, parked before the trace began:
// the trace makes them runnable, running, then parks them, and only that
// last transition's stack tells their function. Each goroutine that
// existed before the trace must be named by the outermost function of
// the first stack the parser gives it (the oracle), not "G7" as when its
// container was made at its first state; and one first stated waiting or
// runnable has been so since the trace's start.
func TestParkedGoroutinesNamed(t *testing.T) {
	const path = "../../../testdata/compare/go-pool-2.trace"
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := xtrace.NewReader(bufio.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]string{} // goroutine -> its function, by the oracle
	before := map[int64]bool{} // existed before the trace
	since0 := map[int64]bool{} // first stated waiting or runnable
	seen := map[int64]bool{}
	outermost := func(s xtrace.Stack) string {
		fn := ""
		for fr := range s.Frames() {
			if fr.Func != "runtime.goexit" {
				fn = fr.Func
			}
		}
		return fn
	}
	for {
		ev, err := r.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind() != xtrace.EventStateTransition {
			continue
		}
		st := ev.StateTransition()
		if st.Resource.Kind != xtrace.ResourceGoroutine {
			continue
		}
		id := int64(st.Resource.Goroutine())
		from, to := st.Goroutine()
		if !seen[id] {
			seen[id] = true
			before[id] = from == xtrace.GoUndetermined
			since0[id] = before[id] && (to == xtrace.GoWaiting || to == xtrace.GoRunnable)
		}
		if before[id] && want[id] == "" {
			if fn := outermost(st.Stack); fn != "" {
				want[id] = fn
			} else if ev.Goroutine() == st.Resource.Goroutine() {
				want[id] = outermost(ev.Stack())
			}
		}
	}
	tr, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int32{}
	for c := 1; c < len(tr.Containers); c++ {
		got[tr.Containers[c].Name] = int32(c)
	}
	first := map[int32]trace.State{}
	for _, s := range tr.States.All() {
		if o, ok := first[s.Container]; tr.TypeName(s.Type) == StateGoroutine && (!ok || s.Start < o.Start) {
			first[s.Container] = s
		}
	}
	named := 0
	for id, fn := range want {
		name := fmt.Sprintf("G%d %s", id, fn)
		c, ok := got[name]
		if !ok {
			t.Errorf("no goroutine %q", name)
			continue
		}
		named++
		if s := first[c]; since0[id] && s.Start != 0 {
			t.Errorf("%s: first state %s from %v, want from 0", name, tr.ValueName(s.Value), s.Start)
		}
	}
	if named < 7 || want[7] != "main.watcher" {
		t.Errorf("%d goroutines from before the trace named; G7 is %q", named, want[7])
	}
}
