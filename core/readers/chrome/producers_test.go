package chrome

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestProducers reads the real traces of testdata/producers (see its
// README.md) and compares the states, events, links, processes and
// threads with count_model.py, an independent reading in Python.
func TestProducers(t *testing.T) {
	files, err := filepath.Glob("testdata/producers/*/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: it computes the expected values")
	}
	out, err := exec.Command(python, append([]string{"testdata/producers/count_model.py"}, files...)...).Output()
	if err != nil {
		t.Fatalf("count_model.py: %v", err)
	}
	type counts struct {
		File                                      string
		States, Events, Links, Processes, Threads int
	}
	want := map[string]counts{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var c counts
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		want[c.File] = c
	}
	for _, f := range files {
		t.Run(strings.TrimPrefix(f, "testdata/producers/"), func(t *testing.T) {
			w, ok := want[f]
			if !ok {
				t.Fatal("no oracle output")
			}
			tr, err := readFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got := counts{File: f, States: tr.States.Len(), Events: tr.Events.Len(), Links: tr.Links.Len()}
			for _, c := range tr.Containers[1:] {
				switch tr.TypeName(c.Type) {
				case "Process":
					got.Processes++
				case "Thread":
					if !strings.Contains(c.Alias, "#") { // not an overlap lane
						got.Threads++
					}
				}
			}
			if got != w {
				t.Errorf("got %+v\nwant %+v", got, w)
			}
		})
	}
}
