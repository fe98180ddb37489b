package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOverviewOfAnOTF2Archive runs the overview on a trace that is not
// Pajé, found by its content and named with --format.
func TestOverviewOfAnOTF2Archive(t *testing.T) {
	archive := filepath.Join(corpus, "tracer-stencil4d/stencil4d-otf/traces-32")
	if _, err := os.Stat(archive); err != nil {
		t.Skip("the shared trace corpus is absent: ", err)
	}
	dir := t.TempDir()
	for _, format := range []string{"", "otf2"} {
		png := filepath.Join(dir, "o"+format+".png")
		var out, errOut bytes.Buffer
		args := []string{"overview", "-slices", "20", "-o", png, "-table", ""}
		if format != "" {
			args = append(args, "-format", format)
		}
		if code := run(append(args, archive), &out, &errOut); code != 0 {
			t.Fatalf("--format %q: status %d: %s", format, code, errOut.String())
		}
		if !strings.Contains(out.String(), "67 containers, 1251 states") {
			t.Errorf("--format %q: output %s", format, out.String())
		}
		if st, err := os.Stat(png); err != nil || st.Size() == 0 {
			t.Errorf("--format %q: no figure: %v", format, err)
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"overview", "-format", "xml", archive}, &out, &errOut); code != 1 ||
		!strings.Contains(errOut.String(), `unknown format "xml"`) {
		t.Errorf("unknown format: status %d, %s", code, errOut.String())
	}
}
