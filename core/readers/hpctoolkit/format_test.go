package hpctoolkit

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The database is read whole whichever of its files, or its directory,
// is given; the files are sniffed by their first bytes.
func TestFormatOpen(t *testing.T) {
	sparse := sample().write(t)
	xmlDir := writeXMLDB(t)
	cases := []struct {
		path   string
		states int
	}{
		{sparse, 8},
		{filepath.Join(sparse, "meta.db"), 8},
		{filepath.Join(sparse, "trace.db"), 8},
		{filepath.Join(sparse, "profile.db"), 8},
		{xmlDir, 7},
		{filepath.Join(xmlDir, "experiment.xml"), 7},
		{filepath.Join(xmlDir, "synth-000003-000-0000abcd-42-0.hpctrace"), 7},
	}
	for _, c := range cases {
		fi, _ := os.Stat(c.path)
		if fi.IsDir() {
			if Format.SniffDir == nil || !Format.SniffDir(c.path) {
				t.Errorf("%s: SniffDir is false", c.path)
			}
		} else {
			head, _ := os.ReadFile(c.path)
			if !Format.Sniff(head[:min(len(head), 512)]) {
				t.Errorf("%s: Sniff is false", c.path)
			}
		}
		opts, err := Format.Check(ingest.Values{})
		if err != nil {
			t.Fatal(err)
		}
		src, err := Format.Open(c.path, opts)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		tr := trace.New()
		if err := src.Read(tr, trace.ReadOptions{}); err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		if tr.States.Len() != c.states || !src.Whole || len(src.Files) == 0 {
			t.Errorf("%s: %d states (want %d), whole %v, files %q", c.path, tr.States.Len(), c.states, src.Whole, src.Files)
		}
	}
	// The loops option reaches the reader.
	opts, err := Format.Check(ingest.Values{"loops": true})
	if err != nil {
		t.Fatal(err)
	}
	src, err := Format.Open(sparse, opts)
	if err != nil {
		t.Fatal(err)
	}
	tr := trace.New()
	if err := src.Read(tr, trace.ReadOptions{}); err != nil || tr.States.Len() != 9 {
		t.Errorf("loops=true: %d states, want 9 (%v)", tr.States.Len(), err)
	}
}

func TestSniffRefuses(t *testing.T) {
	dir := t.TempDir()
	if sniffDir(dir) {
		t.Error("SniffDir of an empty directory")
	}
	os.WriteFile(filepath.Join(dir, "experiment.xml"), []byte(synthXML), 0o644)
	if sniffDir(dir) {
		t.Error("SniffDir of a profile-only XML database (no *.hpctrace)")
	}
	for _, head := range []string{"", "HPCTOOL", "<?xml version=\"1.0\"?>\n<trace>", "EZTRACE"} {
		if sniff([]byte(head)) {
			t.Errorf("Sniff(%q) is true", head)
		}
	}
	err := Read(filepath.Join(dir, "nothing"), trace.New(), trace.ReadOptions{})
	if err == nil {
		t.Error("reading a missing path succeeded")
	}
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "x.txt"), []byte("x"), 0o644)
	wantFormatError(t, Read(filepath.Join(other, "x.txt"), trace.New(), trace.ReadOptions{}), "not an HPCToolkit database")
}

// Probe tells the span from the headers: trace.db's minimum and maximum,
// experiment.xml's db-min-time and db-max-time.
func TestProbe(t *testing.T) {
	for _, c := range []struct {
		dir string
		end trace.Time
	}{{sample().write(t), 900}, {writeXMLDB(t), 1000000}} {
		src, err := Format.Open(c.dir, ingest.Values{})
		if err != nil {
			t.Fatal(err)
		}
		start, end, ok := src.Probe()
		if !ok || start != 0 || end != c.end {
			t.Errorf("%s: probe %v %v %v, want 0 %v true", c.dir, start, end, ok, c.end)
		}
	}
}

// Older experiment.xml files start with the DTD, whose DOCTYPE names the
// root element.
func TestSniffDoctype(t *testing.T) {
	f := filepath.Join(corpus(t, "hatchet", "tests", "data", "hpctoolkit-cpi-database"), "experiment.xml")
	head, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if !Format.Sniff(head[:512]) {
		t.Error("hatchet's experiment.xml is not recognised")
	}
}

// A database without trace.db holds profiles only.
func TestNoTraceDB(t *testing.T) {
	dir := sample().write(t)
	os.Remove(filepath.Join(dir, "trace.db"))
	err := Read(dir, trace.New(), trace.ReadOptions{})
	if err == nil {
		t.Fatal("a database without trace.db was read")
	}
	wantFormatError(t, err, "profiles only")
}

// Read takes a database directory or one of its files. Here, an XML
// database with one thread whose samples fall in main, then in work called
// from a loop in main.
func ExampleRead() {
	dir, _ := os.MkdirTemp("", "hpctoolkit")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "experiment.xml"), []byte(synthXML), 0o644)
	os.WriteFile(filepath.Join(dir, "app-000000-000-0000abcd-42-0.hpctrace"),
		hpctrace(bigEndian, [2]uint64{1000, 100}, [2]uint64{1400, 102}), 0o644)

	tr := trace.New()
	if err := Read(filepath.Join(dir, "experiment.xml"), tr, trace.ReadOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range tr.States.All() {
		fmt.Println(tr.Containers[s.Container].Name, s.Depth, tr.Values[s.Value].Name, s.Start, s.End)
	}
	// Output:
	// Thread 0 1 work 0.000400000 0.001000000
	// Thread 0 0 main 0.000000000 0.001000000
}
