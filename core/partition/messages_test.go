package partition

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// cluster builds the model of an OTF2 archive's plan as a cluster does:
// the extent of every part (guessed), then per part a partial and its
// message ends, both through the bytes a worker sends, added up in a tree
// (partials and ends alike), the ends matched at the root and their
// partial merged last; built again on the extent found when the guess was
// wrong. It returns the model, the root partial and the passes.
func cluster(t *testing.T, plan *Plan, opt micro.Options) (*micro.Model, *micro.Partial, int) {
	t.Helper()
	start, end := trace.Time(math.MaxInt64), trace.Time(math.MinInt64)
	for _, p := range plan.Parts {
		s, e, err := Extent(p, true, trace.ReadOptions{})
		if err != nil {
			t.Fatalf("extent of %s: %v", p.Label, err)
		}
		start, end = min(start, s), max(end, e)
	}
	for passes := 1; passes <= 2; passes++ {
		type shipped struct {
			partial []byte
			msgs    []byte
		}
		var level []shipped
		for _, p := range plan.Parts {
			part, msgs, err := BuildMessages(p, opt, start, end, trace.ReadOptions{})
			if err != nil {
				t.Fatalf("partial of %s: %v", p.Label, err)
			}
			data, err := part.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			level = append(level, shipped{data, msgs})
		}
		for len(level) > 1 {
			var next []shipped
			for i := 0; i < len(level); i += 2 {
				if i+1 == len(level) {
					next = append(next, level[i])
					continue
				}
				a, b := decode(t, level[i].partial), decode(t, level[i+1].partial)
				m, err := micro.Merge(plan.Order, a, b)
				if err != nil {
					t.Fatal(err)
				}
				data, err := m.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				msgs, err := MergeMessages(level[i].msgs, level[i+1].msgs)
				if err != nil {
					t.Fatal(err)
				}
				next = append(next, shipped{data, msgs})
			}
			level = next
		}
		root := decode(t, level[0].partial)
		if len(level[0].msgs) > 0 {
			matched, err := MatchMessages(plan.Parts[0], [][]byte{level[0].msgs}, opt, start, end, root)
			if err != nil {
				t.Fatal(err)
			}
			if root, err = micro.Merge(plan.Order, root, matched); err != nil {
				t.Fatal(err)
			}
		}
		if root.Start == start && root.End == end || passes == 2 {
			m, err := root.Model()
			if err != nil {
				t.Fatalf("model of the merged partials: %v", err)
			}
			return m, root, passes
		}
		start, end = root.Start, root.End
	}
	panic("unreachable")
}

func decode(t *testing.T, data []byte) *micro.Partial {
	t.Helper()
	p, err := micro.UnmarshalPartial(data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// checkCluster compares the cluster's model of the archive at path, cut
// into at most n parts, with the whole archive's single read: the model
// bit for bit, the counts (links and unmatched ends included), no message
// skipped.
func checkCluster(t *testing.T, path string, n, wantParts int, kinds ...string) {
	t.Helper()
	plan, err := PlanFile(path, "", nil, n)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Parts) != wantParts {
		t.Fatalf("%d parts, want %d", len(plan.Parts), wantParts)
	}
	for name, opt := range options() {
		if !contains(kinds, strings.Split(name, "/")[0]) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			got, root, passes := cluster(t, plan, opt)
			want, wsum := wholeSummary(t, path, opt)
			same(t, name, got, want)
			if root.Counts != wsum.Counts || root.Start != wsum.Start || root.End != wsum.End || passes != wsum.Passes {
				t.Errorf("counts %+v [%d, %d] in %d passes, want %+v [%d, %d] in %d",
					root.Counts, root.Start, root.End, passes, wsum.Counts, wsum.Start, wsum.End, wsum.Passes)
			}
			for _, note := range root.Notes {
				if strings.Contains(note, "message") {
					t.Errorf("note %q", note)
				}
			}
		})
	}
}

// testdata/otf2-beyond: two location groups, a message from the first to
// the second, and records beyond the clock properties' length (the window
// guessed is wrong: two passes, as the single read makes).
func TestClusterMessagesBeyond(t *testing.T) {
	path := filepath.Join("testdata", "otf2-beyond", "traces.otf2")
	checkCluster(t, path, 1000, 2, "states", "average")
	_, wsum := wholeSummary(t, path, micro.Options{Slices: 7, Depth: micro.Innermost})
	if wsum.Links != 1 {
		t.Fatalf("%d links, want 1", wsum.Links)
	}
}

// The corpus archives' messages cross location groups: stencil4d's 1,024
// (64 ranks, a group each, or 3 groups of consecutive ranks), pipit's
// ping-pongs between 2 ranks.
func TestClusterMessagesCorpus(t *testing.T) {
	for _, tc := range []struct {
		path     []string
		n, parts int
		links    int64
		kinds    []string
	}{
		{[]string{"tracer-stencil4d", "stencil4d-otf", "traces-64", "traces.otf2"}, 1000, 64, 1024, []string{"states", "events"}},
		{[]string{"tracer-stencil4d", "stencil4d-otf", "traces-64", "traces.otf2"}, 3, 3, 1024, []string{"states", "average"}},
		{[]string{"pipit", "tests", "data", "ping-pong-otf2", "traces.otf2"}, 1000, 2, -1, []string{"states", "events"}},
		{[]string{"pipit", "tests", "data", "ping-pong-otf2-papi", "traces.otf2"}, 1000, 2, -1, []string{"states", "variables"}},
	} {
		t.Run(tc.path[len(tc.path)-2], func(t *testing.T) {
			path := corpus(t, tc.path...)
			_, wsum := wholeSummary(t, path, micro.Options{Slices: 7, Depth: micro.Innermost})
			if tc.links >= 0 && wsum.Links != tc.links || wsum.Links == 0 {
				t.Fatalf("%d links in the whole read, want %d", wsum.Links, tc.links)
			}
			checkCluster(t, path, tc.n, tc.parts, tc.kinds...)
		})
	}
}

// The ends a part ships are those it could not match; the ends of the
// parts, matched one by one or added up first, make the same partial.
func TestClusterMessagesAddUp(t *testing.T) {
	path := corpus(t, "tracer-stencil4d", "stencil4d-otf", "traces-64", "traces.otf2")
	plan, err := PlanFile(path, "", nil, 4)
	if err != nil {
		t.Fatal(err)
	}
	opt := micro.Options{Slices: 10, Metric: micro.EventCount}
	var parts []*micro.Partial
	var msgs [][]byte
	var sum []byte
	ends := 0
	for _, p := range plan.Parts {
		part, m, err := BuildMessages(p, opt, 0, 1e12, trace.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		kept, err := unmarshalEnds(m)
		if err != nil {
			t.Fatal(err)
		}
		ends += kept.Len()
		parts, msgs = append(parts, part), append(msgs, m)
		if sum, err = MergeMessages(sum, m); err != nil {
			t.Fatal(err)
		}
	}
	// Each of the 1,024 messages crossing the 4 parts leaves 2 ends.
	_, wsum := wholeSummary(t, path, opt)
	one, err := MatchMessages(plan.Parts[0], msgs, opt, 0, 1e12, parts...)
	if err != nil {
		t.Fatal(err)
	}
	added, err := MatchMessages(plan.Parts[0], [][]byte{sum}, opt, 0, 1e12, parts...)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := one.MarshalBinary()
	b, _ := added.MarshalBinary()
	if !bytes.Equal(a, b) {
		t.Error("the ends matched one by one and added up make different partials")
	}
	var within int64
	for _, p := range parts {
		within += p.Counts.Links
	}
	if one.Counts.Links+within != wsum.Links || int64(ends) != 2*one.Counts.Links {
		t.Errorf("%d links matched from %d ends, %d within the parts; want %d in all", one.Counts.Links, ends, within, wsum.Links)
	}
}

// Messages of a part cut short or of another kind are an error that says
// which part.
func TestClusterMessagesBadBytes(t *testing.T) {
	path := filepath.Join("testdata", "otf2-beyond", "traces.otf2")
	plan, err := PlanFile(path, "", nil, 1000)
	if err != nil {
		t.Fatal(err)
	}
	opt := micro.Options{Slices: 7, Depth: micro.Innermost}
	part, m, err := BuildMessages(plan.Parts[0], opt, 0, 150, trace.ReadOptions{})
	if err != nil || len(m) == 0 {
		t.Fatalf("%d bytes of messages, %v", len(m), err)
	}
	_, err = MatchMessages(plan.Parts[0], [][]byte{nil, m[:len(m)-1]}, opt, 0, 150, part)
	if err == nil || !strings.HasPrefix(err.Error(), "messages of part 1: encoded OTF2 messages: byte ") {
		t.Errorf("error %v", err)
	}
	if _, err := MergeMessages(m, []byte("{}")); err == nil || !strings.Contains(err.Error(), "not encoded OTF2 messages") {
		t.Errorf("error %v", err)
	}
}
