package chrome

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// walkCounts is what an independent reading of a trace with
// encoding/json counts: entries by phase and what the reader must make of
// them.
type walkCounts struct {
	phases         map[string]int64
	counterSamples int64            // numeric args of C events
	otherMetadata  map[string]int64 // M events the model does not hold, by name
}

// walk decodes a trace with encoding/json, which knows nothing of the
// reader, and counts its entries.
func walk(t *testing.T, path string) walkCounts {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.HasPrefix(raw, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if raw, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	var events []map[string]any
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(raw, &doc); err == nil {
		events = doc.TraceEvents
	} else if err := json.Unmarshal(raw, &events); err != nil {
		// The array form may lack its closing bracket.
		trimmed := strings.TrimRight(strings.TrimSpace(string(raw)), ",")
		if err := json.Unmarshal([]byte(trimmed+"]"), &events); err != nil {
			t.Fatalf("encoding/json cannot read %s: %v", path, err)
		}
	}
	w := walkCounts{phases: map[string]int64{}, otherMetadata: map[string]int64{}}
	for _, e := range events {
		ph, ok := e["ph"].(string)
		if !ok {
			ph = "<none>"
		}
		w.phases[ph]++
		switch ph {
		case "C":
			args, _ := e["args"].(map[string]any)
			for _, v := range args {
				if _, ok := v.(float64); ok {
					w.counterSamples++
				}
			}
		case "M":
			switch name, _ := e["name"].(string); name {
			case "process_name", "process_labels", "process_sort_index", "thread_name", "thread_sort_index":
			default:
				w.otherMetadata[name]++
			}
		}
	}
	return w
}

// TestCorpusAgainstEncodingJSON reads every real trace and checks the
// reader's entities and notes against counts made with encoding/json:
// each X event is a state, each instant an event, each numeric counter
// value a variable piece, and each entry without ph and each metadata
// event the model does not hold is counted in the notes.
func TestCorpusAgainstEncodingJSON(t *testing.T) {
	for _, f := range corpusFiles(t) {
		t.Run(strings.TrimPrefix(f, corpus+"/"), func(t *testing.T) {
			w := walk(t, f)
			tr := trace.New(f)
			notes := &trace.Notes{}
			if err := read(f, tr, trace.ReadOptions{Notes: notes}); err != nil {
				t.Fatal(err)
			}
			for ph := range w.phases {
				switch ph {
				case "X", "M", "i", "I", "R", "C", "s", "t", "f", "<none>":
				default:
					t.Fatalf("phase %q: the test does not know what to expect", ph)
				}
			}
			instants := 0
			for _, e := range tr.Events.All() {
				if strings.HasSuffix(tr.TypeName(e.Type), "nstant") {
					instants++
				}
			}
			check := func(what string, got, want int64) {
				t.Helper()
				if got != want {
					t.Errorf("%s: got %d, want %d", what, got, want)
				}
			}
			check("states (X)", int64(tr.States.Len()), w.phases["X"])
			check("instants (i, I, R)", int64(instants), w.phases["i"]+w.phases["I"]+w.phases["R"])
			check("variable pieces (numeric counter values)", int64(tr.Variables.Len()), w.counterSamples)
			skipped := notes.Skipped()
			check("entries without ph", skipped["entries without ph"], w.phases["<none>"])
			var metadata int64
			for name, n := range w.otherMetadata {
				check(fmt.Sprintf("metadata %q", name), skipped[fmt.Sprintf("metadata events (ph M) %q (not modelled)", name)], n)
				metadata += n
			}
			var total int64
			for what, n := range skipped {
				total += n
				if !strings.HasPrefix(what, "metadata events") && what != "entries without ph" {
					t.Errorf("unexpected note: skipped %d %s", n, what)
				}
			}
			check("skipped in all", total, w.phases["<none>"]+metadata)
			if r := notes.IncompleteReasons(); r != nil {
				t.Errorf("incomplete: %q", r)
			}
			// No two containers share a path: tables keyed by path
			// would merge them.
			paths := map[string]int{}
			for c := range tr.Containers {
				p := tr.ContainerPath(int32(c), "/")
				if d, ok := paths[p]; ok {
					t.Errorf("containers %d and %d share the path %q", d, c, p)
				}
				paths[p] = c
			}
		})
	}
}
