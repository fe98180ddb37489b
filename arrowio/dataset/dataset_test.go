package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	_ "github.com/macroscope-hpc/macroscope/arrowio/files/goparquet" // the Parquet writer
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// smallTrace: a machine m holding the processes "a b" and p2 (a rank
// type), a state, a variable and an event on each side, a link each way
// (one without value, key or size) and a state on the machine itself.
func smallTrace() *trace.Trace {
	t := trace.New("small.trace")
	t.DefineType(trace.Type{Name: "Machine", Kind: trace.KindContainer, Parent: trace.None})    // 0
	t.DefineType(trace.Type{Name: "Process", Kind: trace.KindContainer, Parent: 0})             // 1
	t.DefineType(trace.Type{Name: "State", Kind: trace.KindState, Parent: 1})                   // 2
	t.DefineType(trace.Type{Name: "Load", Kind: trace.KindVariable, Parent: 1})                 // 3
	t.DefineType(trace.Type{Name: "Mark", Kind: trace.KindEvent, Parent: 1})                    // 4
	t.DefineType(trace.Type{Name: "Msg", Kind: trace.KindLink, Parent: 0, Start: 1, End: 1})    // 5
	t.DefineValue(trace.Value{Type: 2, Name: "run", Category: "compute", Role: trace.RoleStep}) // 0
	t.DefineValue(trace.Value{Type: 2, Name: "wait"})                                           // 1
	t.DefineValue(trace.Value{Type: 4, Name: "checkpoint"})                                     // 2
	t.DefineValue(trace.Value{Type: 5, Name: "tag 7"})                                          // 3
	t.CreateContainer(trace.Container{Name: "m", Type: 0, Parent: 0})                           // 1
	t.CreateContainer(trace.Container{Name: "a b", Type: 1, Parent: 1})                         // 2
	t.CreateContainer(trace.Container{Name: "p2", Type: 1, Parent: 1})                          // 3
	t.State(trace.State{Container: 2, Type: 2, Value: 0, Start: 0, End: 1_500_000_001})
	t.State(trace.State{Container: 3, Type: 2, Value: 1, Start: 1, End: 2, Depth: 1})
	t.State(trace.State{Container: 1, Type: 2, Value: 1, Start: 5, End: 9})
	t.Variable(trace.Variable{Container: 3, Type: 3, Start: 250_000_000, End: 3 * trace.Second, Value: 0.5})
	t.Event(trace.Event{Container: 2, Type: 4, Value: 2, Time: 2_000_000_007})
	t.Link(trace.Link{Container: 1, Type: 5, Value: 3, Start: trace.Second, End: 2 * trace.Second, From: 2, To: 3, Key: "k1", Size: 4096})
	t.Link(trace.Link{Container: 1, Type: 5, Value: trace.None, Start: 2 * trace.Second, End: 2 * trace.Second, From: 3, To: 2, Size: math.NaN()})
	t.Finish(0, 3*trace.Second)
	return t
}

// filesIn lists the files under dir, relative, sorted.
func filesIn(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// readRows reads a Parquet file of the dataset as rows of Go values (nil for
// a null).
func readRows(t *testing.T, path string) (names []string, out [][]any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := pqarrow.ReadTable(context.Background(), bytes.NewReader(b), nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	for _, f := range tbl.Schema().Fields() {
		names = append(names, f.Name)
	}
	out = make([][]any, tbl.NumRows())
	for i := range out {
		out[i] = make([]any, tbl.NumCols())
	}
	for c := 0; c < int(tbl.NumCols()); c++ {
		row := 0
		for _, chunk := range tbl.Column(c).Data().Chunks() {
			for i := 0; i < chunk.Len(); i, row = i+1, row+1 {
				if chunk.IsNull(i) {
					continue
				}
				switch a := chunk.(type) {
				case *array.String:
					out[row][c] = a.Value(i)
				case *array.Int64:
					out[row][c] = a.Value(i)
				case *array.Int32:
					out[row][c] = a.Value(i)
				case *array.Float64:
					out[row][c] = a.Value(i)
				default:
					t.Fatalf("%s: column %s of type %s", path, names[c], chunk.DataType())
				}
			}
		}
	}
	return names, out
}

func TestWriteByRank(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	st, err := Write(smallTrace(), dir, Options{PartitionBy: Rank, Format: "paje"})
	if err != nil {
		t.Fatal(err)
	}
	// The machine's own state has no process above it: its partition is
	// the top-level container, m.
	if want := map[string]int64{"states": 3, "links": 2, "variables": 1, "events": 1}; !reflect.DeepEqual(st.Rows, want) || st.Partitions != 3 {
		t.Errorf("stats %+v", st)
	}
	want := []string{
		Marker, "containers/part-0.parquet",
		"events/rank=m%2Fa%20b/part-0.parquet",
		"links/rank=m%2Fa%20b/part-0.parquet", "links/rank=m%2Fp2/part-0.parquet",
		"states/rank=m%2Fa%20b/part-0.parquet", "states/rank=m%2Fp2/part-0.parquet", "states/rank=m/part-0.parquet",
		"values/part-0.parquet", "variables/rank=m%2Fp2/part-0.parquet",
	}
	if got := filesIn(t, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("files\n%v\nwant\n%v", got, want)
	}
	for _, c := range []struct {
		file  string
		names []string
		rows  [][]any
	}{
		{"states/rank=m%2Fa%20b/part-0.parquet", []string{"container", "type", "value", "category", "start_ns", "end_ns", "depth", "role"},
			[][]any{{"m/a b", "State", "run", "compute", int64(0), int64(1_500_000_001), int32(0), "step"}}},
		{"states/rank=m%2Fp2/part-0.parquet", nil, [][]any{{"m/p2", "State", "wait", nil, int64(1), int64(2), int32(1), nil}}},
		{"links/rank=m%2Fa%20b/part-0.parquet", []string{"container", "type", "value", "source", "destination", "start_ns", "end_ns", "key", "size"},
			[][]any{{"m", "Msg", "tag 7", "m/a b", "m/p2", int64(1e9), int64(2e9), "k1", 4096.0}}},
		{"links/rank=m%2Fp2/part-0.parquet", nil, [][]any{{"m", "Msg", nil, "m/p2", "m/a b", int64(2e9), int64(2e9), nil, nil}}},
		{"variables/rank=m%2Fp2/part-0.parquet", []string{"container", "type", "start_ns", "end_ns", "value"},
			[][]any{{"m/p2", "Load", int64(250_000_000), int64(3e9), 0.5}}},
		{"events/rank=m%2Fa%20b/part-0.parquet", []string{"container", "type", "value", "category", "time_ns"},
			[][]any{{"m/a b", "Mark", "checkpoint", nil, int64(2_000_000_007)}}},
		{"values/part-0.parquet", []string{"type", "value", "category", "role"},
			[][]any{{"State", "run", "compute", "step"}, {"State", "wait", nil, nil}}},
		{"containers/part-0.parquet", []string{"path", "name", "type", "parent", "depth", "start_ns", "end_ns"},
			[][]any{{"m", "m", "Machine", "", int32(1), int64(0), int64(3e9)}, {"m/a b", "a b", "Process", "m", int32(2), int64(0), int64(3e9)},
				{"m/p2", "p2", "Process", "m", int32(2), int64(0), int64(3e9)}}},
	} {
		names, got := readRows(t, filepath.Join(dir, c.file))
		if c.names != nil && !reflect.DeepEqual(names, c.names) {
			t.Errorf("%s: columns %v, want %v", c.file, names, c.names)
		}
		if !reflect.DeepEqual(got, c.rows) {
			t.Errorf("%s: rows %v, want %v", c.file, got, c.rows)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, Marker))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	wantMarker := map[string]any{"macroscope_dataset": 1.0, "time_unit": "ns", "partition_by": "rank", "source": []any{"small.trace"},
		"format": "paje", "rows": map[string]any{"states": 3.0, "links": 2.0, "variables": 1.0, "events": 1.0},
		"start_ns": 0.0, "end_ns": 3e9, "roles": true}
	if !reflect.DeepEqual(m, wantMarker) {
		t.Errorf("marker %v", m)
	}
	// Refused: a directory with something in it.
	if _, err := Write(smallTrace(), dir, Options{PartitionBy: Rank}); !isArgument(err, "directory") {
		t.Errorf("over a dataset: %v", err)
	}
}

func isArgument(err error, name string) bool {
	var ae *errs.ArgumentError
	return errors.As(err, &ae) && ae.Name == name
}

func TestWriteByTypeOrNone(t *testing.T) {
	for _, c := range []struct {
		by    string
		parts []string
	}{
		{"Machine", []string{"rank=m"}},
		{"", []string{"rank=%2F"}},
	} {
		dir := filepath.Join(t.TempDir(), "ds")
		if _, err := Write(smallTrace(), dir, Options{PartitionBy: c.by}); err != nil {
			t.Fatal(err)
		}
		entries, _ := os.ReadDir(filepath.Join(dir, "states"))
		var got []string
		for _, e := range entries {
			got = append(got, e.Name())
		}
		if !reflect.DeepEqual(got, c.parts) {
			t.Errorf("by %q: %v, want %v", c.by, got, c.parts)
		}
	}
	_, err := Write(smallTrace(), filepath.Join(t.TempDir(), "ds"), Options{PartitionBy: "Galaxy"})
	if !isArgument(err, "partition_by") || !strings.Contains(err.Error(), `no container type "Galaxy" (it has Machine, Process)`) {
		t.Errorf("by an unknown type: %v", err)
	}
}

// TestEscapeIsArrows: partition values are encoded as pyarrow's hive
// partitioning encodes them (pyarrow 26's Partitioning.format of every
// printable ASCII character, then é and a tab).
func TestEscapeIsArrows(t *testing.T) {
	var s strings.Builder
	for c := ' '; c < 127; c++ {
		s.WriteRune(c)
	}
	s.WriteString("é\t")
	const pyarrow = "%20%21%22%23%24%25%26%27%28%29%2A%2B%2C-.%2F0123456789%3A%3B%3C%3D%3E%3F%40ABCDEFGHIJKLMNOPQRSTUVWXYZ%5B%5C%5D%5E_%60abcdefghijklmnopqrstuvwxyz%7B%7C%7D~%C3%A9%09"
	if got := escape(s.String()); got != pyarrow {
		t.Errorf("escape:\n%s\nwant\n%s", got, pyarrow)
	}
}

func TestWriteStopsWhenCanceled(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	_, err := Write(smallTrace(), filepath.Join(t.TempDir(), "ds"), Options{PartitionBy: Rank, Cancel: stop})
	if !errors.Is(err, trace.ErrCanceled) {
		t.Errorf("canceled: %v", err)
	}
}

// The layout of a trace written as a dataset, one partition per process.
func ExampleWrite() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	st, err := Write(smallTrace(), filepath.Join(dir, "small.parquet"), Options{PartitionBy: Rank, Format: "paje"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(st.Rows["states"], "states in", st.Partitions, "partitions")
	entries, _ := os.ReadDir(filepath.Join(dir, "small.parquet", "states"))
	for _, e := range entries {
		fmt.Println(e.Name())
	}
	// Output:
	// 3 states in 3 partitions
	// rank=m
	// rank=m%2Fa%20b
	// rank=m%2Fp2
}
