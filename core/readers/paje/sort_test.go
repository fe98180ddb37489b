package paje

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// shuffleEvents returns a sorted trace with its dated event lines shuffled
// in blocks, its other lines (header, definitions, comments) first in
// their order. The test finds the date of a line from the header itself:
// each %EventDef lists its fields in order, Time among them or not.
// Blocks are cut only where the date changes, so that a stable sort by
// date gives back the original order exactly.
func shuffleEvents(t *testing.T, sorted []byte, blockLines int, seed uint64) []byte {
	t.Helper()
	timeField := map[string]int{} // event id -> index of its Time field (1 = first after the id)
	var defining string
	var fields int
	var head, body [][]byte
	var dates []string
	sc := bufio.NewScanner(bytes.NewReader(sorted))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		f := strings.Fields(string(line))
		switch {
		case len(f) > 0 && strings.HasPrefix(f[0], "%"):
			words := strings.Fields(strings.TrimPrefix(string(line), "%"))
			switch {
			case len(words) == 3 && words[0] == "EventDef":
				defining, fields = words[2], 0
			case len(words) >= 1 && words[0] == "EndEventDef":
				defining = ""
			case len(words) == 2 && defining != "":
				fields++
				if words[0] == "Time" {
					timeField[defining] = fields
				}
			}
			head = append(head, line)
		case len(f) > 0 && timeField[f[0]] > 0:
			body = append(body, line)
			dates = append(dates, f[timeField[f[0]]])
		default:
			head = append(head, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	var blocks [][][]byte
	for i := 0; i < len(body); {
		j := min(i+blockLines, len(body))
		for j < len(body) && dates[j] == dates[j-1] {
			j++
		}
		blocks = append(blocks, body[i:j])
		i = j
	}
	r := rand.New(rand.NewPCG(seed, 0))
	r.Shuffle(len(blocks), func(i, j int) { blocks[i], blocks[j] = blocks[j], blocks[i] })
	var out bytes.Buffer
	for _, l := range head {
		out.Write(l)
		out.WriteByte('\n')
	}
	for _, b := range blocks {
		for _, l := range b {
			out.Write(l)
			out.WriteByte('\n')
		}
	}
	if len(blocks) < 10 {
		t.Fatalf("only %d blocks", len(blocks))
	}
	return out.Bytes()
}

// TestSort shuffles the events of sorted traces, reads them with Sort, in
// small runs that go to disk or stay in memory, and compares with the
// sorted original.
func TestSort(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..", "shared", "traces", "pajeng", "traces")
	for _, c := range []struct {
		path   string
		run    int64
		memory int64 // Options.SortMemory
		runs   int   // on disk, at least
		inMem  int   // in memory, at least
		// identical: the trace defines its types and values before its
		// events, so that the sort, which moves definitions ahead of every
		// event, keeps their order; otherwise values may be numbered
		// differently, and the traces are compared with values named.
		identical bool
	}{
		{filepath.Join("..", "..", "..", "testdata", "jacobi32.trace"), 64 << 10, -1, 20, 0, true},
		{filepath.Join("..", "..", "..", "testdata", "jacobi32.trace"), 64 << 10, 0, 0, 20, true},         // runs kept in memory
		{filepath.Join("..", "..", "..", "testdata", "jacobi32.trace"), 64 << 10, 256 << 10, 10, 3, true}, // some of each
		{filepath.Join("..", "..", "..", "testdata", "jacobi32.trace"), 0, 0, 0, 0, true},                 // one run, not merged
		{filepath.Join(root, "simu-mardi.trace"), 16 << 10, -1, 10, 0, false},
	} {
		t.Run(fmt.Sprintf("%s/run=%d,memory=%d", filepath.Base(c.path), c.run, c.memory), func(t *testing.T) {
			sorted, err := os.ReadFile(c.path)
			if errors.Is(err, os.ErrNotExist) {
				t.Skipf("trace corpus not available: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			want, err := readFile(c.path)
			if err != nil {
				t.Fatal(err)
			}
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			shuffled := filepath.Join(t.TempDir(), "shuffled.trace")
			if err := os.WriteFile(shuffled, shuffleEvents(t, sorted, 200, 7), 0o600); err != nil {
				t.Fatal(err)
			}

			// Unsorted, the read fails (on a container used before the
			// line creating it, here; TestErrors checks the message on
			// dates out of order).
			_, err = readFile(shuffled)
			var fe *errs.FormatError
			if !errors.As(err, &fe) || fe.File != shuffled || fe.Line < 1 {
				t.Errorf("unsorted read: %v", err)
			}

			var runs, inMem int
			runsMerged = func(disk, mem int) { runs, inMem = disk, mem }
			defer func() { runsMerged = nil }()
			got := trace.New(c.path)
			var last, total int64
			opt := Options{Sort: true, SortRun: c.run, SortMemory: c.memory}
			opt.Progress = func(done, all int64) { last, total = done, all }
			if err := readFiles([]string{shuffled}, got, opt); err != nil {
				t.Fatal(err)
			}
			if diff := readertest.Difference(got, want); c.identical && diff != "" {
				t.Errorf("sorted read differs from the original: %s", diff)
			}
			if g, w := named(got), named(want); g != w {
				t.Errorf("sorted read differs from the original, values named: %s", readertest.FirstDiff(g, w))
			}
			if runs < c.runs || (c.runs == 0 && runs != 0) {
				t.Errorf("%d runs on disk, want at least %d", runs, c.runs)
			}
			if inMem < c.inMem || (c.inMem == 0 && inMem != 0) {
				t.Errorf("%d runs in memory, want at least %d", inMem, c.inMem)
			}
			if size := int64(len(sorted)); last != 2*size || total != 2*size {
				t.Errorf("progress %d/%d, want %d/%d", last, total, 2*size, 2*size)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("%d temporary files left", len(left))
			}
		})
	}
}

// named renders a trace with its values named rather than numbered, one
// entity a line, the values' table as a set.
func named(tr *trace.Trace) string {
	var b strings.Builder
	val := func(v int32) string {
		if v == trace.None {
			return "-"
		}
		x := tr.Values[v]
		return fmt.Sprintf("%d:%s", x.Type, x.Name)
	}
	values := make([]string, len(tr.Values))
	for i, v := range tr.Values {
		values[i] = fmt.Sprintf("%+v", v)
	}
	slices.Sort(values)
	fmt.Fprintf(&b, "%v\n%v\n%v\n%v\n%s %s\n", tr.Types, values, tr.Containers, tr.Variables, tr.Start, tr.End)
	for _, s := range tr.States.All() {
		fmt.Fprintf(&b, "S %d %d %s %s %s %d %d\n", s.Container, s.Type, val(s.Value), s.Start, s.End, s.Depth, s.Order)
	}
	for _, l := range tr.Links.All() {
		fmt.Fprintf(&b, "L %d %d %s %s %s %d %d %q %v\n", l.Container, l.Type, val(l.Value), l.Start, l.End, l.From, l.To, l.Key, l.Size)
	}
	for _, e := range tr.Events.All() {
		fmt.Fprintf(&b, "E %d %d %s %s\n", e.Container, e.Type, val(e.Value), e.Time)
	}
	return b.String()
}

// TestSortThroughTheDoor reads an unsorted trace, compressed, through the
// format's options.
func TestSortThroughTheDoor(t *testing.T) {
	path := filepath.Join("..", "..", "..", "testdata", "jacobi32.trace")
	sorted, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := readFile(path)
	if err != nil {
		t.Fatal(err)
	}
	shuffled := filepath.Join(t.TempDir(), "shuffled.trace.zst")
	os.WriteFile(shuffled, readertest.Compress(t, shuffleEvents(t, sorted, 100, 3), "zstd"), 0o600)
	v, err := Format.Check(ingest.Values{"sort": ingest.Text("true")})
	if err != nil {
		t.Fatal(err)
	}
	src, err := Format.Open(shuffled, v)
	if err != nil {
		t.Fatal(err)
	}
	if src.Probe != nil {
		t.Error("a sorted read has a probe")
	}
	got := trace.New(path)
	if err := src.Read(got, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	if diff := readertest.Difference(got, want); diff != "" {
		t.Errorf("sorted read differs from the original: %s", diff)
	}
}

// TestSortErrorsNameTheLine checks that an error met after the sort names
// the line in the input, not in the sorted text: the unknown container
// p2, on the last line, comes first once sorted.
func TestSortErrorsNameTheLine(t *testing.T) {
	in := miniHeader + "3 2 p1 S a\n3 1 p1 S b\n3 3 p1 S nope\n3 0.5 p2 S a\n"
	p := filepath.Join(t.TempDir(), "bad.trace")
	os.WriteFile(p, []byte(in), 0o600)
	err := readFiles([]string{p}, trace.New(), Options{Sort: true})
	var fe *errs.FormatError
	if !errors.As(err, &fe) || fe.File != p || fe.Line != headerLines+4 || !strings.Contains(err.Error(), "p2") {
		t.Errorf("got %v, want an error at %s:%d", err, p, headerLines+4)
	}
}

// TestSortEmpty reads an empty file and no file at all with Sort.
func TestSortEmpty(t *testing.T) {
	p := filepath.Join(t.TempDir(), "empty.trace")
	os.WriteFile(p, nil, 0o600)
	err := readFiles([]string{p}, trace.New(), Options{Sort: true})
	var fe *errs.FormatError
	if !errors.As(err, &fe) || fe.File != p || !strings.Contains(err.Error(), "not a Pajé trace") {
		t.Errorf("empty file: %v", err)
	}
	var ae *errs.ArgumentError
	if err := readFiles(nil, trace.New(), Options{Sort: true}); !errors.As(err, &ae) {
		t.Errorf("no file: %v", err)
	}
}
