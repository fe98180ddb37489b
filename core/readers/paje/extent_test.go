package paje

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

func TestExtentOfCorpus(t *testing.T) {
	var paths []string
	filepath.Walk(corpus, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(path, ".trace") {
			paths = append(paths, path)
		}
		return nil
	})
	if len(paths) == 0 {
		t.Skip("the shared trace corpus is absent")
	}
	right := 0
	for _, p := range paths {
		var f trace.Counter
		if err := read(p, &f, trace.ReadOptions{}); err != nil {
			continue // not a readable Pajé trace
		}
		first, last, ok := extent([]string{p}, Options{})
		if !ok {
			t.Logf("%s: no guess", p)
			continue
		}
		if first != f.Start || last != f.End {
			t.Errorf("%s: guessed [%s, %s], read [%s, %s]", p, first, last, f.Start, f.End)
			continue
		}
		right++
	}
	if right < 25 {
		t.Errorf("only %d right guesses", right)
	}
	t.Logf("%d right guesses", right)
}

func TestExtentCases(t *testing.T) {
	dir := t.TempDir()
	header := "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n" +
		"%EventDef PajeCreateContainer 1\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n" +
		"%EventDef PajeDestroyContainer 2\n% Time date\n% Type string\n% Name string\n%EndEventDef\n" +
		"%EventDef PajeDefineStateType 3\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n" +
		"%EventDef PajeSetState 4\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n"
	cases := []struct {
		name, body  string
		ok          bool
		first, last trace.Time
	}{
		{"ordered", "0 H 0 Host\n3 S H State\n1 1.5 h H 0 h\n4 2 S h a\n4 3.25 S h b\n", true, 1500000000, 3250000000},
		{"untimed and comments at the end", "0 H 0 Host\n1 0 h H 0 h\n4 2 S h a\n3 S2 H State2\n# done\n\n", true, 0, 2000000000},
		{"no final newline", "0 H 0 Host\n1 0 h H 0 h\n4 7 S h a", true, 0, 7000000000},
		{"backwards", "0 H 0 Host\n1 4 h H 0 h\n4 9 S h a\n4 5 S h b\n", true, 4000000000, 5000000000},
		{"no dated event", "0 H 0 Host\n", false, 0, 0},
		{"unknown event at the end", "0 H 0 Host\n1 0 h H 0 h\n9 1 x\n", false, 0, 0},
		{"definition at the end", "0 H 0 Host\n1 0 h H 0 h\n%EventDef PajeNewEvent 9\n", false, 0, 0},
	}
	for _, c := range cases {
		p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".trace")
		if err := os.WriteFile(p, []byte(header+c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		first, last, ok := extent([]string{p}, Options{})
		if ok != c.ok || (ok && (first != c.first || last != c.last)) {
			t.Errorf("%s: [%s, %s] %v, want [%s, %s] %v", c.name, first, last, ok, c.first, c.last, c.ok)
		}
		if f := (trace.Counter{}); ok {
			if err := read(p, &f, trace.ReadOptions{}); err == nil && (f.Start != first || f.End != last) {
				t.Errorf("%s: the read says [%s, %s]", c.name, f.Start, f.End)
			}
		}
	}
	// A header file and an event file, read as one trace.
	h, e := filepath.Join(dir, "h.trace"), filepath.Join(dir, "e.trace")
	os.WriteFile(h, []byte(header+"0 H 0 Host\n"), 0o644)
	os.WriteFile(e, []byte("1 0.5 h H 0 h\n4 2 S h a\n"), 0o644)
	if first, last, ok := extent([]string{h, e}, Options{}); !ok || first != 500000000 || last != 2000000000 {
		t.Errorf("two files: [%s, %s] %v", first, last, ok)
	}
	if _, _, ok := extent([]string{filepath.Join(dir, "missing")}, Options{}); ok {
		t.Error("a missing file has an extent")
	}
	if _, _, ok := extent(nil, Options{}); ok {
		t.Error("no file has an extent")
	}
}
