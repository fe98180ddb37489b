package synth

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"

	"github.com/macroscope-hpc/macroscope/core/readers/paje"
)

// TestPjDumpReadsIt runs the pj_dump installed here on a generated trace:
// it must accept it and print exactly what our reader and pj_dump writer
// make of it, with one line per container and per state.
func TestPjDumpReadsIt(t *testing.T) {
	bin, err := exec.LookPath("pj_dump")
	if err != nil {
		t.Skip("pj_dump (Debian package pajeng) is not installed")
	}
	c := small(3000, 11)
	c.States = []State{{"Compute", 3}, {"Wait for data", 1}} // a name pj_dump must read quoted
	c.Anomalies = []Anomaly{{Level: Core, At: []int{1, 1, 0, 2}, Weights: map[string]float64{"Compute": 0}, From: 0.1, To: 0.2}}
	in, st := generatePaje(t, c)
	path := filepath.Join(t.TempDir(), "synth.trace")
	if err := os.WriteFile(path, in, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, path).Output()
	if err != nil {
		t.Fatalf("pj_dump: %v", err)
	}
	kinds := map[string]int64{}
	for _, l := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		k, _, _ := strings.Cut(l, ",")
		kinds[k]++
	}
	if kinds["Container"] != int64(st.Containers)+1 || kinds["State"] != st.States || len(kinds) != 2 {
		t.Errorf("pj_dump prints %v, want %d containers (root included) and %d states", kinds, st.Containers+1, st.States)
	}
	if !bytes.Contains(out, []byte("Container, machine-0, Core, 0, 0.125, 0.125, core-2\n")) {
		t.Error("pj_dump does not show core-2 of a machine-0 living [0, 0.125]")
	}
	tr := readPaje(t, in, paje.PajeNG())
	var ours bytes.Buffer
	if err := formats.Write(&ours, tr, "pjdump", nil); err != nil {
		t.Fatal(err)
	}
	if ours.String() != string(out) {
		t.Error("pj_dump's output differs from ours")
	}
}
