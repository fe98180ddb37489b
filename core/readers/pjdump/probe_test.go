package pjdump

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
)

// probes are small traces that exercise one rule of PajeNG's simulation
// each, including the ones that make pj_dump fail. Every probe is compared
// with the live pj_dump, with and without --no-imbrication.
var probes = []struct{ name, body string }{
	{"float32 values", "8 1 p1 V 16777217\n8 2 p1 V 0.1\n8 3 p1 V 1e39\n11 4 p1 S x\n"},
	{"same-instant variable changes", "8 1 p1 V 1\n8 1 p1 V 2\n9 1 p1 V 5\n8 2 p1 V 3\n10 2 p1 V 1\n11 4 p1 S x\n"},
	{"add without set", "9 1 p1 V 1\n11 4 p1 S x\n"},
	{"sub without set", "10 1 p1 V 1\n11 4 p1 S x\n"},
	{"time backwards in one type", "11 3 p1 S x\n11 2 p1 S y\n"},
	{"pop on empty stack", "14 3 p1 S\n"},
	{"link never closed", "16 1 0 L p1 v k1\n11 2 p1 S y\n"},
	{"link end only", "19 1 0 L p1 v k1\n11 2 p1 S y\n"},
	{"link key reused", "16 1 0 L p1 v k\n19 2 0 L p2 v k\n16 3 0 L p1 v k\n19 4 0 L p2 v k\n"},
	{"link values differ", "16 1 0 L p1 v k\n19 2 0 L p2 w k\n"},
	{"link end before start", "19 1 0 L p2 v k\n16 2 0 L p1 v k\n11 3 p1 S x\n"},
	{"destroy root", "7 1 0 0\n11 2 p1 S y\n"},
	{"destroy then use", "7 1 P p1\n11 2 p1 S y\n11 3 p2 S z\n"},
	{"destroy twice", "7 1 P p1\n7 2 P p1\n11 3 p2 S z\n"},
	{"destroy before last event", "11 2 p1 S y\n7 1 P p1\n"},
	{"destroy root then event", "11 0.5 p1 S y\n7 1 0 0\n11 3 p2 S z\n"},
	{"zero-length links at the end", "16 0 0 L p1 v k1\n19 0 0 L p2 v k1\n16 0 0 L p1 v k2\n19 0 0 L p2 v k2\n16 0 0 L p1 v k3\n19 0 0 L p2 v k3\n"},
	{"zero-length links before the end", "16 0 0 L p1 v k1\n19 0 0 L p2 v k1\n16 0 0 L p1 v k2\n19 0 0 L p2 v k2\n11 1 p1 S x\n"},
	{"states at the last instant", "11 1 p1 S a\n12 2 p1 S b\n14 2 p1 S\n12 2 p1 S c\n14 2 p1 S\n"},
	{"nesting", "11 1 p1 S a\n12 2 p1 S b\n12 2 p1 S c\n14 3 p1 S\n14 3 p1 S\n12 4 p1 S d\n14 4 p1 S\n11 5 p1 S e\n12 6 p1 S f\n15 7 S p1\n12 8 p1 S g\n"},
	{"same-instant pushes", "11 1 p1 S a\n12 1 p1 S b\n14 1 p1 S\n12 1 p1 S c\n11 1 p1 S d\n12 1 p1 S e\n11 2 p2 S z\n"},
	{"events", "20 1 p1 E e1\n20 1 p1 E e2\n20 2 p2 E e1\n"},
	{"events out of order", "20 2 p1 E e1\n20 1 p1 E e2\n"},
	{"quoted and commented fields", "11 1 p1 S \"a b\"\n11 3 p1 S x # comment\n"},
	{"blank lines and CRLF", "\n11 1 p1 S a\r\n   \n11 2 p1 S b\r\n"},
	{"unknown container", "11 1 px S a\n"},
	{"unknown type", "11 1 p1 SX a\n"},
	{"type by name while it has an alias", "11 1 p1 STATE a\n"},
	{"unknown event id", "99 1 p1 S a\n"},
	{"container named 0", "6 1 0 P 0 \"zero\"\n"},
	{"duplicate container", "6 1 p1 P 0 \"again\"\n"},
	{"duplicate value", "5 v1 S \"one\" \"1 0 0\"\n5 v1 S \"other\" \"0 1 0\"\n"},
	{"defined values", "5 v1 S \"one\" \"1 0 0\"\n11 1 p1 S v1\n11 2 p1 S one\n"},
	{"nested containers", "0 T P \"THREAD\"\n6 1 t2 T p1 \"t2\"\n6 1 t1 T p1 \"t1\"\n11 2 p1 S a\n7 3 P p1\n11 4 p2 S b\n"},
	{"variable on destroyed container", "8 1 p1 V 1\n7 2 P p1\n8 3 p1 V 2\n11 4 p2 S z\n"},
	{"no timed event after creation", ""},
}

func TestProbesAgainstPjDump(t *testing.T) {
	bin, err := exec.LookPath("pj_dump")
	if err != nil {
		t.Skip("pj_dump (Debian package pajeng) is not installed")
	}
	dir := t.TempDir()
	for i, p := range probes {
		path := filepath.Join(dir, "probe"+itoa(i)+".trace")
		if err := os.WriteFile(path, []byte(probeHeader+"\n"+p.body), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, v := range []struct {
			args []string
			r    run
		}{{nil, run{strict: true}}, {[]string{"-i"}, run{strict: true, noImbrication: true}}} {
			want, wantErr := livePjDump(t, bin, v.args, path)
			got, failed := dump(t, path, v.r, pajeNG136)
			if failed != (wantErr != "") || got != want {
				t.Errorf("%s %v: differs from pj_dump (ours failed: %v, pj_dump: %q)\n%s\n--- ours:\n%s--- pj_dump:\n%s",
					p.name, v.args, failed, wantErr, readertest.FirstDiff(got, want), got, want)
			}
		}
	}
}

// TestTimeBackwardsAcrossContainers: events of two containers out of time
// order, which PajeNG reads (it checks the order per container and type).
// pj_dump ends the trace at the last line's date, 2, and prints p1's state
// from 3 to 2 (a duration of -1); the reader ends the trace at its latest
// event, 3, so that no state ends before it begins: the one place where
// the dump differs from pj_dump's on purpose (docs/ingestion.md).
func TestTimeBackwardsAcrossContainers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "backwards.trace")
	if err := os.WriteFile(path, []byte(probeHeader+"\n11 3 p1 S x\n11 2 p2 S y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := `Container, 0, 0, 0, 3, 3, 0
Container, 0, PROCESS, 0, 3, 3, p2
State, p2, STATE, 2.000000, 3.000000, 1.000000, 0.000000, y
Container, 0, PROCESS, 0, 3, 3, p1
State, p1, STATE, 3.000000, 3.000000, 0.000000, 0.000000, x
`
	for _, r := range []run{{strict: true}, {strict: true, noImbrication: true}} {
		if got, failed := dump(t, path, r, pajeNG136); failed || got != want {
			t.Errorf("%+v: failed %v, got\n%swant\n%s", r, failed, got, want)
		}
	}
}
