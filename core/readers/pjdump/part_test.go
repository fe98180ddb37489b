package pjdump

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// readPart reads the byte range [from, to) of the dump at path through
// the door's options, as a distributed read does.
func readPart(t *testing.T, path string, from, to int) (*trace.Trace, error) {
	t.Helper()
	src, err := Format.Open(path, map[string]any{"part_start": from, "part_end": to})
	if err != nil {
		t.Fatal(err)
	}
	tr := trace.New()
	return tr, src.Read(tr, trace.ReadOptions{})
}

func write(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// An error in a part names the line of the file, as the whole read does.
func TestPartErrorNamesTheFileLine(t *testing.T) {
	var b strings.Builder
	b.WriteString("Container, 0, 0, 0, 9, 9, 0\nContainer, 0, P, 0, 9, 9, \"p\"\n")
	for k := range 20 {
		fmt.Fprintf(&b, "State, \"p\", S, %d.000000, %d.500000, 0.500000, 0.000000, s\n", k%9, k%9)
	}
	b.WriteString("State, \"p\", S, 1.000000, oops, 0.500000, 0.000000, s\n") // line 23
	path := write(t, "bad.csv", b.String())
	_, whole := readPart(t, path, 0, 0)
	var fe *errs.FormatError
	if !errors.As(whole, &fe) || fe.Line != 23 {
		t.Fatalf("whole read: %v, want an error at line 23", whole)
	}
	ranges, err := ranges(path, 3)
	if err != nil || len(ranges) != 3 {
		t.Fatalf("ranges %v, %v", ranges, err)
	}
	last := ranges[2]
	_, err = readPart(t, path, int(last[0]), int(last[1]))
	if !errors.As(err, &fe) || fe.Line != 23 || fe.Error() != whole.Error() {
		t.Fatalf("last part: %v, want %v", err, whole)
	}
}

// The container lines before a range are found however long the lines
// around them, and numbered as in the file.
func TestPartLongLines(t *testing.T) {
	long := strings.Repeat("x", scanBlock+100)
	text := "Container, 0, 0, 0, 9, 9, 0\n" +
		"Container, 0, P, 0, 9, 9, \"p\"\n" +
		"State, \"p\", S, 1.000000, 2.000000, 1.000000, 0.000000, " + long + "\n" +
		"Container, \"p\", T, 0, 9, 9, \"t\"\n" +
		"State, \"t\", S, 3.000000, 4.000000, 1.000000, 0.000000, run\n" +
		"State, \"t\", S, 4.000000, oops, 1.000000, 0.000000, run\n"
	path := write(t, "long.csv", text)
	from := strings.Index(text, "State, \"t\"")
	_, err := readPart(t, path, from, len(text))
	var fe *errs.FormatError
	if !errors.As(err, &fe) || fe.Line != 6 {
		t.Fatalf("part after a long line: %v, want an error at line 6", err)
	}
	tr, err := readPart(t, path, from, strings.Index(text, "State, \"t\", S, 4"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Containers) != 3 || tr.Containers[2].Name != "t" || tr.Containers[2].Parent != 1 || tr.States.Len() != 1 || tr.States.At(0).Container != 2 {
		t.Fatalf("containers %+v, states %+v", tr.Containers, tr.States)
	}
}

// A gzipped dump is one part; a range of it is refused.
func TestPartCompressed(t *testing.T) {
	path := write(t, "d.csv.gz", string(readertest.Compress(t, []byte("Container, 0, 0, 0, 9, 9, 0\n"), "gzip")))
	if r, err := ranges(path, 4); r != nil || err != nil {
		t.Fatalf("ranges of a gzipped file: %v, %v", r, err)
	}
	var ae *errs.ArgumentError
	if _, err := readPart(t, path, 0, 5); !errors.As(err, &ae) {
		t.Fatalf("a range of a gzipped file: %v", err)
	}
	// A directory has no byte ranges.
	if _, err := readPart(t, filepath.Dir(path), 0, 5); !errors.As(err, &ae) {
		t.Fatalf("a range of a directory: %v", err)
	}
	// A file that starts with pj_dump_csv's header is one part too.
	hdr := write(t, "x.container.csv", "Container, Parent, Type, Start, End, Duration, Name\nContainer, 0, 0, 0, 9, 9, 0\n")
	if r, err := ranges(hdr, 4); r != nil || err != nil {
		t.Fatalf("ranges of a file with a header: %v, %v", r, err)
	}
}

// counter counts what a reader delivers.
type counter struct {
	trace.Trace
	states, variables, events, links int
}

func (c *counter) State(s trace.State)       { c.states++ }
func (c *counter) Variable(v trace.Variable) { c.variables++ }
func (c *counter) Event(e trace.Event)       { c.events++ }
func (c *counter) Link(l trace.Link)         { c.links++ }

// FuzzPartRanges reads any input by 3 byte ranges: no part panics, and
// when the whole read succeeds, every part does, and the parts deliver
// the whole read's records, each once.
func FuzzPartRanges(f *testing.F) {
	readertest.BoundMinimization(f)
	f.Add("Container, 0, 0, 0, 9, 9, 0\nLink, 0, L, 1.0, 2.0, 1.0, v, \"b\", \"a\", k\nContainer, 0, P, 0, 9, 9, \"a\"\n" +
		"State, \"a\", S, 1.0, 3.0, 2.0, 0.0, x\nState, \"a\", S, 1.5, 2.0, 0.5, 1.0, y\n" +
		"Container, 0, P, 0, 9, 9, \"b\"\nEvent, \"b\", E, 4.0, e\nVariable, \"b\", V, 0.0, 9.0, 9.0, 3.5\n")
	f.Add("Container, 0, 0, 0, 9, 9, 0\r\nContainer, 0, P, 0, 9, 9, \"a, b\"\r\n\r\nState, \"a, b\", S, 1, 2, 1, 0, \"q, r\"")
	dir := readertest.FuzzDir(f)
	n := 0
	f.Fuzz(func(t *testing.T, text string) {
		n++
		path := filepath.Join(dir, fmt.Sprint(n%8, ".csv"))
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		ranges, err := ranges(path, 3)
		if err != nil || ranges == nil {
			return
		}
		whole := &counter{Trace: *trace.New()}
		wholeErr := Read(path, whole, trace.ReadOptions{})
		sum := &counter{}
		for _, r := range ranges {
			part := &counter{Trace: *trace.New()}
			if err := readRange(path, r[0], r[1], part, readOptions{}); err != nil {
				if wholeErr == nil {
					t.Fatalf("part [%d, %d) fails where the whole read does not: %v", r[0], r[1], err)
				}
				return
			}
			sum.states += part.states
			sum.variables += part.variables
			sum.events += part.events
			sum.links += part.links
		}
		if wholeErr == nil && (sum.states != whole.states || sum.variables != whole.variables ||
			sum.events != whole.events || sum.links != whole.links) {
			t.Fatalf("parts %+v, whole %+v", *sum, *whole)
		}
	})
}
