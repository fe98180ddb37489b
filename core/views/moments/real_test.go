package moments

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// isTrace is an SMPI trace of the NAS IS kernel on 64 ranks: 2,557 MPI
// states, all at depth 0, and the computation between them unrecorded.
const isTrace = "../../../../shared/traces/smpi-nas/is_B_64.trace"

func readIS(t *testing.T) *trace.Trace {
	t.Helper()
	if _, err := os.Stat(isTrace); err != nil {
		t.Skipf("real trace not available: %v", err)
	}
	tr, err := formats.ReadFile(isTrace, "paje")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestRealTraceNorms(t *testing.T) {
	tr := readIS(t)
	r, err := Compute(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Resources) != 64 {
		t.Fatalf("%d resources, want the 64 ranks", len(r.Resources))
	}
	// Busy time per rank, added up straight from the states.
	want := map[int32]trace.Time{}
	var total trace.Time
	for _, s := range tr.States.All() {
		if s.Depth == 0 {
			want[s.Container] += s.End - s.Start
			total += s.End - s.Start
		}
	}
	var sum trace.Time
	for _, id := range r.Resources {
		if got := r.Busy[id].Busy(); got != want[id] {
			t.Errorf("%s: busy %v, states last %v", r.Containers[id].Name, got, want[id])
		}
		sum += r.Busy[id].Busy()
	}
	if sum != total || total == 0 {
		t.Errorf("ranks busy %v in all, states last %v", sum, total)
	}
	if root := r.Subtree()[0].Busy(); root != total {
		t.Errorf("root node busy %v, want %v", root, total)
	}

	// Streaming gives the same sums as replaying the trace in memory.
	acc, _ := New(Options{})
	if err := formats.Read(isTrace, "paje", acc, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	streamed, err := acc.Result()
	if err != nil {
		t.Fatal(err)
	}
	for id := range r.Busy {
		if streamed.Busy[id] != r.Busy[id] {
			t.Errorf("container %d: streamed and replayed sums differ", id)
		}
	}

	// Computation (time in no MPI state) and MPI time fill each rank's life.
	// The ranks also hold an unused MIGRATE_STATE type, so the state type
	// must be chosen.
	if _, err := Compute(tr, Options{Select: Only, Gaps: true}); !isArgumentError(err) {
		t.Errorf("gaps over two state types: %v, want an ArgumentError", err)
	}
	gaps, err := Compute(tr, Options{Select: Only, Gaps: true, StateTypes: []string{"MPI_STATE"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range r.Resources {
		c := r.Containers[id]
		if got := gaps.Busy[id].Busy() + r.Busy[id].Busy(); got != c.End-c.Start {
			t.Errorf("%s: computation %v + MPI %v != life %v", c.Name, gaps.Busy[id].Busy(), r.Busy[id].Busy(), c.End-c.Start)
		}
	}
}

// pj_dump reads the trace independently; the moments of its state
// intervals, computed with rationals, must match ours per rank and per
// rank and MPI call.
func TestRealTraceAgainstPjDump(t *testing.T) {
	tr := readIS(t)
	if _, err := exec.LookPath("pj_dump"); err != nil {
		t.Skip("pj_dump (pajeng) not installed")
	}
	out, err := exec.Command("pj_dump", isTrace).Output()
	if err != nil {
		t.Fatal(err)
	}
	perRank := map[string][]interval{}
	perCall := map[[2]string][]interval{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, ", ")
		if f[0] != "State" {
			continue
		}
		// State, Container, Type, Start, End, Duration, Imbrication, Value
		a, err1 := trace.ParseTime(f[3])
		b, err2 := trace.ParseTime(f[4])
		if err1 != nil || err2 != nil || len(f) != 8 {
			t.Fatalf("bad pj_dump line %q", line)
		}
		perRank[f[1]] = append(perRank[f[1]], interval{a, b})
		perCall[[2]string{f[1], f[7]}] = append(perCall[[2]string{f[1], f[7]}], interval{a, b})
	}
	r, err := Compute(tr, Options{ByState: true})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, id := range r.Resources {
		name := r.Containers[id].Name
		if ivs := nonEmpty(perRank[name]); len(ivs) > 0 {
			checkExact(t, name, r.Busy[id], ivs)
			checked++
		}
	}
	for _, s := range r.States {
		name := r.Containers[s.Container].Name
		checkExact(t, name+" "+s.Name, s.Sums, nonEmpty(perCall[[2]string{name, s.Name}]))
		checked++
	}
	if checked < 64+64*3 {
		t.Errorf("only %d sums checked", checked)
	}
}

// nonEmpty drops zero-length intervals, which carry no busy time.
func nonEmpty(ivs []interval) []interval {
	var r []interval
	for _, iv := range ivs {
		if iv.b > iv.a {
			r = append(r, iv)
		}
	}
	return r
}

// TestGroupedStatesNsight: by state, the moments of an Nsight Systems
// export group PyTorch's NVTX ranges by operator (names.Group): the
// 18,494 names of mfu_2gpu_before's NVTX type ("aten::copy_, op_id =
// 998952"...) are 56 states, and a resource's states add up to its busy
// time, exactly; busy=["aten::copy_"] takes every instance of the
// operator, as much time as its states have at the top of their stack.
func TestGroupedStatesNsight(t *testing.T) {
	const path = "../../../../shared/traces/nsys/mfu_2gpu_before.sqlite"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("real trace not available: %v", err)
	}
	tr, err := formats.ReadFile(path, "")
	if err != nil {
		t.Fatal(err)
	}
	const nvtx = "NVTX push/pop range"
	r, err := Compute(tr, Options{ByState: true, StateTypes: []string{nvtx}})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := r.Rows(ByState)
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]bool{}
	busy := map[string]trace.Time{}
	for _, row := range rows {
		states[row.State] = true
		busy[row.Path] += row.Sums.Busy()
	}
	if len(states) != 56 {
		t.Errorf("%d states by state, want 56", len(states))
	}
	for _, id := range r.Resources {
		if p := r.Path(id, PathSep); busy[p] != r.Busy[id].Busy() {
			t.Errorf("%s: states add up to %v, busy %v", p, busy[p], r.Busy[id].Busy())
		}
	}
	copies, err := Compute(tr, Options{Select: Only, Values: []string{"aten::copy_"}, StateTypes: []string{nvtx}})
	if err != nil {
		t.Fatal(err)
	}
	var got, want trace.Time
	for _, id := range copies.Resources {
		got += copies.Busy[id].Busy()
	}
	for _, row := range rows {
		if row.State == "aten::copy_" {
			want += row.Sums.Busy()
		}
	}
	if got != want || got == 0 {
		t.Errorf("busy=[aten::copy_]: %v, the operator's states by state %v", got, want)
	}
}

// TestBusyByLegendGroup: busy= takes a state by its group as the legend
// shows it, when the group needs the trace's other names: Perfetto's
// nested_tracks names its slices "L5 Slice 17" and so on, 1,024 names
// the legend groups as "L5 Slice" (more than names.ManyInstances differ
// by their number alone), which the accumulator cannot know when the
// first of them streams in. busy=["L5 Slice"] takes as much time as
// every raw name listed, and as the group's states by state; a raw name
// is still taken alone.
func TestBusyByLegendGroup(t *testing.T) {
	const path = "../../../../shared/traces/perfetto/perfetto/nested_tracks.perfetto-trace"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("real trace not available: %v", err)
	}
	tr, err := formats.ReadFile(path, "")
	if err != nil {
		t.Fatal(err)
	}
	var raw []string
	for _, v := range tr.Values {
		if strings.HasPrefix(v.Name, "L5 Slice ") {
			raw = append(raw, v.Name)
		}
	}
	if len(raw) != 1024 {
		t.Fatalf("%d values named L5 Slice N, want 1024", len(raw))
	}
	busy := func(values ...string) trace.Time {
		r, err := Compute(tr, Options{Select: Only, Values: values})
		if err != nil {
			t.Fatal(err)
		}
		var sum trace.Time
		for _, id := range r.Resources {
			sum += r.Busy[id].Busy()
		}
		return sum
	}
	byState, err := Compute(tr, Options{ByState: true})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := byState.Rows(ByState)
	if err != nil {
		t.Fatal(err)
	}
	var want trace.Time
	for _, row := range rows {
		if row.State == "L5 Slice" {
			want += row.Sums.Busy()
		}
	}
	if got := busy("L5 Slice"); got != busy(raw...) || got != want || got == 0 {
		t.Errorf("busy=[L5 Slice]: %v; every raw name: %v; the group's states by state: %v", got, busy(raw...), want)
	}
	if one := busy(raw[0]); one <= 0 || one >= want {
		t.Errorf("busy=[%s]: %v, want a share of %v", raw[0], one, want)
	}
}
