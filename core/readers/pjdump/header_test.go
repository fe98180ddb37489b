package pjdump

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/paje"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestHeaderAgainstPjDump compares WriteHeader with the lines pj_dump -h
// prints before its dump, on the corpus and on the probes.
func TestHeaderAgainstPjDump(t *testing.T) {
	bin, err := exec.LookPath("pj_dump")
	if err != nil {
		t.Skip("pj_dump (Debian package pajeng) is not installed")
	}
	paths := readertest.PajeCorpus(t, corpus)
	dir := t.TempDir()
	for i, p := range probes {
		path := filepath.Join(dir, "probe"+itoa(i)+".trace")
		if err := os.WriteFile(path, []byte(probeHeader+"\n"+p.body), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	compared := 0
	for _, path := range paths {
		tr := trace.New(path)
		if err := decodePaje(path, tr, paje.PajeNG()); err != nil {
			continue // pj_dump prints no header when it fails
		}
		withHeader, err := exec.Command(bin, "-h", path).Output()
		if err != nil {
			t.Fatalf("pj_dump -h %s: %v", path, err)
		}
		plain, err := exec.Command(bin, path).Output()
		if err != nil {
			t.Fatalf("pj_dump %s: %v", path, err)
		}
		want, ok := bytes.CutSuffix(withHeader, plain)
		if !ok {
			t.Fatalf("%s: pj_dump -h does not end with the dump", path)
		}
		var got bytes.Buffer
		if err := writeHeader(&got, tr); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want) {
			t.Errorf("%s: header\n%s\nwant\n%s", filepath.Base(path), got.String(), want)
		}
		compared++
	}
	if compared < 20 {
		t.Fatalf("compared only %d headers", compared)
	}
}
