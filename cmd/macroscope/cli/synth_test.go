package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/gen/synth"
)

// TestSynthCommand checks that the flags reach the generator: the file
// the command writes is the one synth.WritePaje writes for the same
// configuration.
func TestSynthCommand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.trace")
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), []string{"synth", "--sites", "2", "--clusters", "1", "--machines", "3", "--cores", "2", "--events", "3000",
		"--mean", "0.002", "--seed", "9", "--states", "A=1,B=3", "--anomaly", "machine:1/0/2:A=5@0.5-1",
		"--anomaly", "site:0:B=0", path}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	st, err := synth.WritePaje(&want, synth.Config{Sites: 2, Clusters: 1, Machines: 3, Cores: 2, Events: 3000,
		Mean: 2_000_000, Seed: 9, States: []synth.State{{Name: "A", Weight: 1}, {Name: "B", Weight: 3}},
		Anomalies: []synth.Anomaly{
			{Level: synth.Machine, At: []int{1, 0, 2}, Weights: map[string]float64{"A": 5}, From: 0.5, To: 1},
			{Level: synth.Site, At: []int{0}, Weights: map[string]float64{"B": 0}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatal("the command's trace differs from synth.WritePaje's for the same configuration")
	}
	if !strings.Contains(stdout.String(), "22 containers (12 cores)") || st.Containers != 22 {
		t.Errorf("output %q, %d containers", stdout.String(), st.Containers)
	}
}

func TestSynthCommandRefusesBadArguments(t *testing.T) {
	dir := t.TempDir()
	checkRefusals(t, []refusal{
		{[]string{"synth"}, 2, "usage"},
		{[]string{"synth", "--anomaly", "rack:0:A=1", dir + "/x.trace"}, 2, "unknown level"},
		{[]string{"synth", "--sites", "0", dir + "/x.trace"}, 2, "invalid --sites"},
		{[]string{"synth", "--mean", "soon", dir + "/x.trace"}, 2, "invalid --mean"},
		{[]string{"synth", "--format", "otf2", dir + "/x.trace"}, 2, "invalid --format"},
		{[]string{"synth", "--states", "A=1", "--anomaly", "site:0:Z=1", dir + "/x.trace"}, 2, `unknown state "Z"`},
	})
	if _, err := os.Stat(dir + "/x.trace"); !os.IsNotExist(err) {
		t.Error("a refused command left a file")
	}
}
