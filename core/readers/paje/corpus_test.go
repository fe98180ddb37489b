package paje

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

const corpus = "../../../../shared/traces"

func corpusFile(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(corpus, rel)
	if m, _ := filepath.Glob(p); len(m) == 0 {
		t.Skip("the shared trace corpus is absent: ", p)
	}
	return p
}

// TestHistoricalSimGrid reads the SimGrid traces of 2010-2011, which
// pj_dump refuses (their DestroyContainer names a Container field, and
// containers are named "0"). Counts come from the files: containers are
// the CreateContainer lines, entities what their events complete.
func TestHistoricalSimGrid(t *testing.T) {
	cases := []struct {
		file                      string
		containers, states, links int
		maxDepth                  int
	}{
		// Containers and depth as MANIFEST.md counts them (root included).
		// States: the SetState and PushState lines (each state opened
		// ends); links: the EndLink lines (keys are never reused).
		{"examples_msg_ms.trace", 24, 0, 0, 3},
		{"examples_msg_tasks.trace", 99, 170, 0, 4},
		{"examples_msg_volume.trace", 34, 0, 65, 4},
		{"examples_msg_procmig.trace", 29, 24, 0, 4},
	}
	for _, c := range cases {
		tr, err := readFile(corpusFile(t, "simgrid/historical/"+c.file))
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if got := len(tr.Containers) - 1; got != c.containers {
			t.Errorf("%s: %d containers, want %d", c.file, got, c.containers)
		}
		depth := 1
		for i := range tr.Containers {
			d := 1
			for p := int32(i); p > 0; p = tr.Containers[p].Parent {
				d++
			}
			depth = max(depth, d)
		}
		if depth != c.maxDepth {
			t.Errorf("%s: depth %d, want %d", c.file, depth, c.maxDepth)
		}
		if tr.States.Len() != c.states || tr.Links.Len() != c.links {
			t.Errorf("%s: %d states and %d links, want %d and %d", c.file, tr.States.Len(), tr.Links.Len(), c.states, c.links)
		}
		t.Logf("%s: %d states, %d variables, %d links, %d events", c.file, tr.States.Len(), tr.Variables.Len(), tr.Links.Len(), tr.Events.Len())
	}
	// The Lua example uses event types it never defines: a broken trace.
	_, err := readFile(corpusFile(t, "simgrid/historical/examples_lua_tracing_simgrid.trace"))
	var fe *errs.FormatError
	if !errors.As(err, &fe) || fe.Line != 142 {
		t.Fatalf("examples_lua_tracing_simgrid.trace: got %v, want an error on line 142", err)
	}
}
