package micro

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/names"
	"github.com/macroscope-hpc/macroscope/core/readers/chrome"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// corpusTrace reads a trace of the shared corpus (../shared/traces from
// the repository's root), skipping the test when it is absent.
func corpusTrace(t *testing.T, rel string) *trace.Trace {
	t.Helper()
	path := filepath.Join("..", "..", "..", "shared", "traces", rel)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("the corpus trace %s is absent: %v", rel, err)
	}
	tr, err := readTrace(path, "")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestGroupedNsight checks the default key on the Nsight Systems exports
// of the corpus: PyTorch's NVTX ranges, one name per operator instance,
// group into as many states as SQL finds distinct names once the fields
// PyTorch appends (", seq = N", ", op_id = N") and FSDP's module
// arguments are cut:
//
//	WITH t AS (SELECT coalesce(text, (SELECT value FROM StringIds WHERE id = textId)) x
//	           FROM NVTX_EVENTS WHERE eventType = 59 AND coalesce(domainId, 0) = 0), ...
//
// (78 in h100_2gpu_1s, 56 in mfu_2gpu_before); no time is lost: each
// group's time in every cell is the sum of its names' times; and the
// model says that key="type" fits a figure.
func TestGroupedNsight(t *testing.T) {
	for _, c := range []struct {
		file       string
		raw, group int // states of the NVTX push/pop type
		note       string
	}{
		// (The types count CUDA synchronization, CUPTI's synchronisation records.)
		{"nsys/h100_2gpu_1s.sqlite", 16582, 78, `key="domain" gives 8, key="category" gives 6, key="type" gives 6`},
		{"nsys/mfu_2gpu_before.sqlite", 18494, 56, `key="domain" gives 12, key="category" gives 8, key="type" gives 8`},
	} {
		tr := corpusTrace(t, c.file)
		nvtx := Options{Slices: 20, Depth: Innermost, StateTypes: []string{"NVTX push/pop range"}}
		for key, want := range map[Key]int{KeyName: c.raw, KeyGroup: c.group} {
			opt := nvtx
			opt.Key = key
			m, err := Build(tr, opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.States) != want {
				t.Errorf("%s key %s: %d states, want %d", c.file, key, len(m.States), want)
			}
		}
		raw, err := Build(tr, Options{Slices: 20, Depth: Innermost, Key: KeyName})
		if err != nil {
			t.Fatal(err)
		}
		grouped, err := Build(tr, Options{Slices: 20, Depth: Innermost})
		if err != nil {
			t.Fatal(err)
		}
		if len(raw.Notes) != 1 || !strings.Contains(raw.Notes[0], "more than the 20 a figure colours apart") {
			t.Errorf("%s: raw model notes %q", c.file, raw.Notes)
		}
		if len(grouped.Notes) != 1 || !strings.HasSuffix(grouped.Notes[0], c.note) {
			t.Errorf("%s: grouped model notes %q, want one ending %q", c.file, grouped.Notes, c.note)
		}
		sameTime(t, c.file, raw, grouped)
	}
}

// sameTime checks that grouped's every category holds, in every cell, the
// time of the categories of raw whose names group into it (their type
// prefix aside), up to the rounding of the proportions.
func sameTime(t *testing.T, what string, raw, grouped *Model) {
	t.Helper()
	if raw.NumLeaves() != grouped.NumLeaves() || raw.Slices != grouped.Slices {
		t.Fatalf("%s: the models differ in shape", what)
	}
	into := make([]int, len(raw.States))
	for x, s := range raw.States {
		g := names.Group(s)
		if i := strings.Index(s, ":"); i > 0 && !slices.Contains(grouped.States, g) {
			g = s[:i+1] + names.Group(s[i+1:]) // "type:name" labels
		}
		into[x] = slices.Index(grouped.States, g)
		if into[x] < 0 {
			t.Fatalf("%s: state %q groups into %q, which the grouped model lacks", what, s, g)
		}
	}
	sum := make([]float64, len(grouped.States))
	for leaf := range raw.NumLeaves() {
		for k := range raw.Slices {
			clear(sum)
			for x := range raw.States {
				sum[into[x]] += raw.Value(leaf, k, x)
			}
			for g, v := range sum {
				if got := grouped.Value(leaf, k, g); math.Abs(got-v) > 1e-12 {
					t.Fatalf("%s: leaf %d slice %d %q: %g, the raw states add up to %g", what, leaf, k, grouped.States[g], got, v)
				}
			}
		}
	}
}

// TestGroupedNumberIDs: states named by a number alone, many of one type
// (Perfetto's frame timeline slices, named by the frame's token), are one
// state of the type's name in the model, built or streamed, and it holds,
// in every cell, the time of all of them.
func TestGroupedNumberIDs(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"traceEvents":[`)
	const frames = names.ManyInstances + 5
	for i := range frames {
		fmt.Fprintf(&b, `{"ph":"X","name":"%d","pid":1,"tid":1,"ts":%d,"dur":1},`, 154408112+7*i, 2*i)
	}
	b.WriteString(`{"ph":"X","name":"draw","pid":1,"tid":2,"ts":0,"dur":50}]}`)
	tr := trace.New("frames.json")
	if err := chrome.Decode(strings.NewReader(b.String()), "frames.json", 0, tr, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	typ := tr.Types[tr.Values[0].Type].Name
	opt := Options{Slices: 5, Depth: Innermost}
	raw, err := Build(tr, Options{Slices: 5, Depth: Innermost, Key: KeyName})
	if err != nil {
		t.Fatal(err)
	}
	built, err := Build(tr, opt)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := NewAccumulator(opt, tr.Start, tr.End)
	if err != nil {
		t.Fatal(err)
	}
	replay(tr)(acc, trace.ReadOptions{})
	streamed, err := acc.Model()
	if err != nil {
		t.Fatal(err)
	}
	if len(raw.States) != frames+1 {
		t.Fatalf("key name: %d states, want %d", len(raw.States), frames+1)
	}
	for what, m := range map[string]*Model{"built": built, "streamed": streamed} {
		if want := []string{typ, "draw"}; !slices.Equal(sortedCopy(m.States), sortedCopy(want)) {
			t.Fatalf("%s: states %q, want %q", what, m.States, want)
		}
		into := make([]int, len(raw.States))
		for x, s := range raw.States {
			if s == "draw" {
				into[x] = slices.Index(m.States, "draw")
			} else {
				into[x] = slices.Index(m.States, typ)
			}
		}
		for leaf := range raw.NumLeaves() {
			for k := range raw.Slices {
				sum := make([]float64, len(m.States))
				for x := range raw.States {
					sum[into[x]] += raw.Value(leaf, k, x)
				}
				for g, v := range sum {
					if got := m.Value(leaf, k, g); math.Abs(got-v) > 1e-12 {
						t.Fatalf("%s: leaf %d slice %d %q: %g, the raw states add up to %g", what, leaf, k, m.States[g], got, v)
					}
				}
			}
		}
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}
