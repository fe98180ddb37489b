package compare

import (
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	_ "github.com/macroscope-hpc/macroscope/core/readers/sqlitedb" // the "sqlite" driver
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// withSteps copies the corpus's Nsight Systems export of a real PyTorch
// run (emit_nvtx: NVTX ranges "aten::mm, op_id = K") and adds NVTX
// ranges of PyTorch profiler's steps on one thread, as emit_nvtx writes
// them ("ProfilerStep#N, op_id = K"), each [start, end] ns around
// top-level ranges of the thread, so that they nest.
func withSteps(t *testing.T, name string, tid int64, first int, steps [][2]int64) string {
	t.Helper()
	src := filepath.Join(corpus, "nsys", "h100_2gpu_1s.sqlite")
	in, err := os.Open(src)
	if err != nil {
		t.Skipf("corpus trace absent: %v", err)
	}
	defer in.Close()
	path := filepath.Join(t.TempDir(), name)
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for k, s := range steps {
		if _, err := db.Exec(`INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) VALUES (?, ?, 59, ?, ?, 0)`,
			s[0], s[1], fmt.Sprintf("ProfilerStep#%d, op_id = %d", first+k, 900000+k), tid); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// TestMarkersOnNsysSteps: two Nsight Systems runs aligned on their
// steps, with no marker name given: run A has steps #10-#13 on one
// thread, run B #11-#14 on another; they share #11-#13, whose starts and
// the end of #13 are the boundaries (the times inserted, exactly), each
// run dropping one step.
func TestMarkersOnNsysSteps(t *testing.T) {
	const tidA, tidB = 281476838981743, 281476855758960
	a := withSteps(t, "a.sqlite", tidA, 10, [][2]int64{{155357596302, 155547826384}, {155547829493, 156075945067},
		{156075949262, 156092679903}, {156092683160, 156326928226}})
	b := withSteps(t, "b.sqlite", tidB, 11, [][2]int64{{155400416462, 155634487850}, {155634531099, 156085457862},
		{156085495331, 156231285127}, {156231294700, 156326842070}})
	var inputs []Input
	for _, p := range []string{a, b} {
		src, _, err := formats.Open(p, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, Input{Name: filepath.Base(p), Source: src})
	}
	set, err := Build(inputs, Options{Slices: 30, Align: Align{Method: Markers}}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]trace.Time{{155547829493, 156075949262, 156092683160, 156326928226},
		{155400416462, 155634531099, 156085495331, 156231285127}}
	// The threads of the global ids: pid and tid are bits 24-47 and
	// 0-23 (111 and 112), on host "modal".
	wantOn := []string{"modal/python3 (111)/python3 (111)", "modal/python3 (112)/python3 (112)"}
	for i, r := range set.Runs {
		if !slices.Equal(r.Markers, want[i]) || r.DroppedMarkers != 1 || r.MarkerResource != wantOn[i] {
			t.Errorf("run %s: boundaries %v (%d dropped) on %q, want %v (1) on %q", r.Name, r.Markers, r.DroppedMarkers,
				r.MarkerResource, want[i], wantOn[i])
		}
	}
}

// TestMarkersOnJAXSteps: two JAX runs (XSpace files of jax 0.10.2 on
// CPU) aligned on their steps, with no marker name given: the steps are
// StepTraceAnnotation("train", step_num=N), every one named "train",
// known by its number. Run A has steps 0-2, run B 1-4; they share 1 and
// 2, whose starts and the end of 2 are the boundaries (the files' times,
// read with the protobuf package), A dropping one step and B two.
func TestMarkersOnJAXSteps(t *testing.T) {
	var inputs []Input
	for _, name := range []string{"jax_cpu.xplane.pb", "jax_cpu_steps1to4.xplane.pb"} {
		src, _, err := formats.Open(filepath.Join("..", "..", "readers", "xplane", "testdata", name), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, Input{Name: name, Source: src})
	}
	set, err := Build(inputs, Options{Slices: 10, Align: Align{Method: Markers}}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]trace.Time{{667785, 791859, 868754}, {108318, 3247517, 3375342}}
	dropped := []int{1, 2}
	for i, r := range set.Runs {
		if !slices.Equal(r.Markers, want[i]) || r.DroppedMarkers != dropped[i] || !strings.HasSuffix(r.MarkerResource, "/python (overlap lane 1)") {
			t.Errorf("run %s: boundaries %v (%d dropped) on %q, want %v (%d) on the python thread", r.Name, r.Markers,
				r.DroppedMarkers, r.MarkerResource, want[i], dropped[i])
		}
	}
}
