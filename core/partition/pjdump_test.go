package partition

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// writeDump writes pj_dump output that exercises what a byte range must
// get from outside itself: links under the root printed before the
// containers they join, containers of one name in two places ("t1"), a
// container type and state types first used late in the file, nested
// states, events, quoted names holding commas (pj_dump's quotes never
// span lines: a cut after a newline is never inside one) and the word
// Container, a run of blank lines (a range of it holds no record). eol ends the lines ("\n" or "\r\n");
// lastEOL the last one ("" for a file cut after its last line).
func writeDump(t *testing.T, eol, lastEOL string) string {
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	add("Container, 0, 0, 0, 40, 40, 0")
	for i := range 6 {
		add("Link, 0, \"comm, mpi\", %d.000000, %d.500000, 0.500000, msg%d, \"t2\", \"p%d\", k%d", i, i+1, i%2, i%3, i)
	}
	add("Link, 0, gpu, 2.000000, 3.000000, 1.000000, copy, \"gpu stream\", \"p0\", kg")
	for p := range 3 {
		add("Container, 0, Process, 0, 40, 40, \"p%d\"", p)
		add("State, \"p%d\", PState, %d.000000, %d.000000, %d.000000, 0.000000, \"init, io\"", p, p, p+5, 5)
		// A name holding "Container", which the scan of container lines
		// must not take for one.
		add("Event, \"p%d\", mark, %d.500000, \"Container, created\"", p, p)
		add("Variable, \"p%d\", mem, 0.000000, 40.000000, 40.000000, %d.5", p, p)
		threads := []string{"t0", "t1"}
		if p == 2 {
			threads = append(threads, "t2")
		}
		for ti, th := range threads {
			add("Container, \"p%d\", Thread, 0, 40, 40, \"%s\"", p, th)
			for k := range 8 {
				begin := 4*k + p + ti
				add("State, \"%s\", TState, %d.000000, %d.000000, 3.000000, 0.000000, compute", th, begin, begin+3)
				if k%3 == 1 {
					add("State, \"%s\", TState, %d.250000, %d.750000, 1.500000, 1.000000, \"mpi, wait\"", th, begin, begin+1)
				}
				if k%4 == 2 {
					add("Event, \"%s\", mark, %d.125000, tick%d", th, begin, k%2)
				}
			}
			if p == 1 && ti == 1 {
				for range 5 {
					add("")
				}
			}
		}
	}
	// A container type first used at the end of the file, and a state
	// type of it.
	add("Container, 0, GPU, 0, 40, 40, \"gpu stream\"")
	for k := range 5 {
		add("State, \"gpu stream\", Kernel, %d.000000, %d.000000, 2.000000, 0.000000, gemm", 7*k+1, 7*k+3)
	}
	add("Event, \"gpu stream\", mark, 39.000000, tick1")
	text := strings.Join(lines, eol) + lastEOL
	path := filepath.Join(t.TempDir(), "dump.csv")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// exactly fails unless two models are equal in every field, bit for bit.
func exactly(t *testing.T, what string, got, want *micro.Model) {
	t.Helper()
	same(t, what, got, want)
	if !reflect.DeepEqual(got.Container, want.Container) || !reflect.DeepEqual(got.StateType, want.StateType) ||
		!reflect.DeepEqual(got.Colors, want.Colors) {
		t.Fatalf("%s: the nodes map to other containers or types:\n%v %v\nwant\n%v %v", what,
			got.Container, got.StateType, want.Container, want.StateType)
	}
}

// checkDump compares, for each number of parts, the model of the merged
// partials with the whole read's.
func checkDump(t *testing.T, path string, counts []int, kinds ...string) {
	t.Helper()
	size := fileSize(t, path)
	for _, n := range counts {
		plan, err := PlanFile(path, "pjdump", nil, n)
		if err != nil {
			t.Fatal(err)
		}
		checkRanges(t, plan, n, size, size > 2000)
		for name, opt := range options() {
			if !contains(kinds, strings.Split(name, "/")[0]) {
				continue
			}
			t.Run(fmt.Sprintf("%d/%s", n, name), func(t *testing.T) {
				exactly(t, name, distributed(t, plan, opt), whole(t, path, "pjdump", opt))
			})
		}
	}
}

func fileSize(t *testing.T, path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// checkRanges checks that a plan's byte ranges cover the file once, in
// order, as n parts (fewer only when the lines are fewer).
func checkRanges(t *testing.T, plan *Plan, n int, size int64, exact bool) {
	t.Helper()
	if plan.Order != micro.ByPart || len(plan.Parts) > n || (exact && n <= 7 && len(plan.Parts) != n) {
		t.Fatalf("%d parts for %d asked (order %d)", len(plan.Parts), n, plan.Order)
	}
	at := 0
	for _, p := range plan.Parts {
		if p.Options.Int("part_start") != at {
			t.Fatalf("part %s starts at %d, want %d", p.Label, p.Options.Int("part_start"), at)
		}
		at = p.Options.Int("part_end")
	}
	if int64(at) != size {
		t.Fatalf("the parts end at %d, the file at %d", at, size)
	}
}

func TestPjdumpRanges(t *testing.T) {
	for _, tc := range []struct{ name, eol, last string }{
		{"LF", "\n", "\n"}, {"CRLF", "\r\n", "\r\n"}, {"no final newline", "\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkDump(t, writeDump(t, tc.eol, tc.last), []int{1, 2, 3, 7, 1000}, "states", "average", "events")
		})
	}
}

// A part whose range holds no record (blank lines only, or container
// lines only) adds nothing, and the model is still the whole read's.
func TestPjdumpEmptyPart(t *testing.T) {
	path := writeDump(t, "\n", "\n")
	data, _ := os.ReadFile(path)
	blank := strings.Index(string(data), "\n\n\n\n\n\n") + 1 // the 5 blank lines
	cont := strings.Index(string(data), "Container, 0, GPU")
	contEnd := cont + strings.Index(string(data[cont:]), "\n") + 1
	cuts := []int{0, blank, blank + 2, blank + 5, cont, contEnd, len(data)}
	plan := &Plan{Order: micro.ByPart}
	for i := range len(cuts) - 1 {
		plan.Parts = append(plan.Parts, Part{Path: path, Format: "pjdump", Label: fmt.Sprint("range ", i),
			Options: map[string]any{"part_start": cuts[i], "part_end": cuts[i+1]}})
	}
	opt := micro.Options{Slices: 23, Depth: micro.Innermost}
	exactly(t, "empty parts", distributed(t, plan, opt), whole(t, path, "pjdump", opt))
	// The link counts add up too.
	var counts micro.Counts
	for _, p := range plan.Parts {
		part, err := Build(p, opt, 0, 40_000_000_000, trace.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		counts.Links += part.Counts.Links
		counts.States += part.Counts.States
	}
	if counts.Links != 7 || counts.States != 7*8+3+5+countNested() {
		t.Fatalf("parts counted %d links and %d states", counts.Links, counts.States)
	}
}

// countNested is the number of nested states writeDump writes: one in
// three of the 8 per thread (k = 1, 4, 7), on 7 threads.
func countNested() int64 { return 3 * 7 }

// A gzipped dump cannot be cut: one part, the whole read's model.
func TestPjdumpGzipIsOnePart(t *testing.T) {
	data, err := os.ReadFile(writeDump(t, "\n", "\n"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "dump.csv.gz")
	if err := os.WriteFile(path, readertest.Compress(t, data, "gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := PlanFile(path, "pjdump", nil, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Parts) != 1 || len(plan.Parts[0].Options) != 0 {
		t.Fatalf("parts of a gzipped dump: %+v", plan.Parts)
	}
	opt := micro.Options{Slices: 9, Depth: micro.Innermost}
	exactly(t, "gzip", distributed(t, plan, opt), whole(t, path, "pjdump", opt))
}

// A directory of StarVZ's split gzipped files is one part.
func TestPjdumpCompressedIsOnePart(t *testing.T) {
	path := corpus(t, "starvz", "extra_data", "qr_trace")
	plan, err := PlanFile(path, "pjdump", nil, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Parts) != 1 {
		t.Fatalf("%d parts of a directory of gzipped files", len(plan.Parts))
	}
}

func TestPjdumpCorpus(t *testing.T) {
	t.Run("simu_mardi", func(t *testing.T) {
		// 307 containers, 13,620 states, 405 links under the root and
		// clusters, printed before the hosts they join.
		checkDump(t, corpus(t, "pajeng", "oracles", "032_pj_dump_simu_mardi_trace.out"), []int{1, 2, 3, 7, 64}, "states", "average")
	})
	t.Run("events", func(t *testing.T) {
		// 4 lines: more parts than lines.
		checkDump(t, corpus(t, "pajeng", "oracles", "036_pj_dump_events_trace.out"), []int{1, 2, 3, 7, 100}, "events")
	})
}

// A range cut before a nested state, which the plan never makes, fails
// the innermost model: never a silently different one.
func TestPjdumpCutInNestingFails(t *testing.T) {
	path := writeDump(t, "\n", "\n")
	data, _ := os.ReadFile(path)
	cut := strings.Index(string(data), "State, \"t0\", TState, 4.250000")
	if cut < 0 {
		t.Fatal("no nested state in the dump")
	}
	opt := micro.Options{Slices: 5, Depth: micro.Innermost}
	p := Part{Path: path, Format: "pjdump", Label: "cut", Options: map[string]any{"part_start": cut, "part_end": len(data)}}
	if _, err := Build(p, opt, 0, 40_000_000_000, trace.ReadOptions{}); !errors.Is(err, micro.ErrNesting) {
		t.Fatalf("a part starting at a nested state: %v, want ErrNesting", err)
	}
	plan, _ := PlanFile(path, "pjdump", nil, 1000)
	for _, p := range plan.Parts {
		if start := p.Options.Int("part_start"); strings.HasPrefix(string(data[start:]), "State") &&
			strings.Contains(strings.SplitN(string(data[start:]), "\n", 2)[0], "1.000000, \"mpi") {
			t.Fatalf("the plan cuts before a nested state at %d", start)
		}
	}
}
