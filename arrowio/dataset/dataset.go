// Package dataset writes a trace as a hive-partitioned Parquet dataset:
// the layout the Python package reads back (macroscope.read on the
// directory, a part per file on a Dask cluster) and that Dask, DuckDB,
// polars, Spark and R's arrow read lazily, one partition without the
// others:
//
//	DIR/_macroscope_dataset.json         what the dataset holds (version, source, rows)
//	DIR/containers/part-0.parquet        the hierarchy
//	DIR/values/part-0.parquet            the values of the states, in the trace's order
//	DIR/states/rank=NAME/part-0.parquet  the states of the containers under NAME
//	DIR/links/rank=NAME/part-0.parquet   the links sent from there
//	DIR/variables/rank=NAME/part-0.parquet
//	DIR/events/rank=NAME/part-0.parquet
//
// NAME is the path of the partition's container, percent-encoded as
// Arrow's hive partitioning encodes it (every byte but letters, digits and
// -._~). Times are integer nanoseconds; containers are named by their
// paths; a state's role column names its value's role (trace.Role), which
// the models read. A table without rows, or a partition, has no directory. The
// schema is fixed (Schemas; docs/distributed.md).
package dataset

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/arrowio/files"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Version is the version of the layout, in the marker file; readers
// refuse another.
const Version = 1

// Marker is the file that makes a directory a dataset.
const Marker = "_macroscope_dataset.json"

// Rank partitions by rank: the container of a row's container that is a
// process of the parallel run (see RankTypes).
const Rank = "rank"

// RankTypes are the container types that are a rank, in the order they
// are looked for: the runs of several files, Paraver's tasks, OTF2's and
// Chrome's processes, MPI ranks.
var RankTypes = []string{"Run", "Task", "process", "Process", "MPI Rank", "MPI rank", "Rank", "rank"}

// NoRank is the partition of the rows of no container (the root's) and
// of every row when the dataset is not partitioned.
const NoRank = "/"

func field(name string, t arrow.DataType) arrow.Field {
	return arrow.Field{Name: name, Type: t, Nullable: true}
}

var (
	str   = arrow.BinaryTypes.String
	i64   = arrow.PrimitiveTypes.Int64
	i32   = arrow.PrimitiveTypes.Int32
	f64   = arrow.PrimitiveTypes.Float64
	rankF = field("rank", str)
)

// Schemas are the schemas of the dataset's tables, the partition column
// rank (in the directories' names, not in the files) last.
var Schemas = map[string]*arrow.Schema{
	"containers": arrow.NewSchema([]arrow.Field{field("path", str), field("name", str), field("type", str), field("parent", str),
		field("depth", i32), field("start_ns", i64), field("end_ns", i64)}, nil),
	"values": arrow.NewSchema([]arrow.Field{field("type", str), field("value", str), field("category", str), field("role", str)}, nil),
	"states": arrow.NewSchema([]arrow.Field{field("container", str), field("type", str), field("value", str), field("category", str),
		field("start_ns", i64), field("end_ns", i64), field("depth", i32), field("role", str), rankF}, nil),
	"links": arrow.NewSchema([]arrow.Field{field("container", str), field("type", str), field("value", str), field("source", str),
		field("destination", str), field("start_ns", i64), field("end_ns", i64), field("key", str), field("size", f64), rankF}, nil),
	"variables": arrow.NewSchema([]arrow.Field{field("container", str), field("type", str), field("start_ns", i64),
		field("end_ns", i64), field("value", f64), rankF}, nil),
	"events": arrow.NewSchema([]arrow.Field{field("container", str), field("type", str), field("value", str), field("category", str),
		field("time_ns", i64), rankF}, nil),
}

// Options are those of Write.
type Options struct {
	// PartitionBy is Rank, the name of a container type (each row goes
	// to the outermost container of that type above its own, or the
	// top-level one), or "" for one partition, NoRank.
	PartitionBy string
	// Format is the trace's format, recorded in the marker.
	Format string
	// Cancel, once closed, stops the writing with trace.ErrCanceled.
	Cancel <-chan struct{}
}

// Stats says what Write wrote: the rows of each table and the number of
// partitions (of the states, the links, the variables and the events).
type Stats struct {
	Rows       map[string]int64
	Partitions int
}

// marker is the content of the marker file, in the order written.
type marker struct {
	Version     int      `json:"macroscope_dataset"`
	TimeUnit    string   `json:"time_unit"`
	PartitionBy *string  `json:"partition_by"`
	Source      []string `json:"source"`
	Format      string   `json:"format"`
	Rows        rows     `json:"rows"`
	StartNs     int64    `json:"start_ns"`
	EndNs       int64    `json:"end_ns"`
	// Roles is true: the states carry the role of their value (the
	// column role). Datasets written before it have no such column, and
	// their models cannot tell the profiler's spans from the work.
	Roles bool `json:"roles"`
}

// rows are the rows of each table, in the order the marker lists them.
type rows struct {
	States    int64 `json:"states"`
	Links     int64 `json:"links"`
	Variables int64 `json:"variables"`
	Events    int64 `json:"events"`
}

// tables are the partitioned tables, in the order written.
var tables = []string{"states", "links", "variables", "events"}

// Write writes the trace as a dataset in dir, which must not exist or be
// empty. A failure leaves what was written.
func Write(t *trace.Trace, dir string, opt Options) (Stats, error) {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return Stats{}, errs.Argument("directory", "%s exists and is not empty", dir)
	}
	ranks, err := rankOf(t, opt.PartitionBy)
	if err != nil {
		return Stats{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Stats{}, err
	}
	w := &writer{t: t, dir: dir, cancel: opt.Cancel, mem: memory.NewGoAllocator(), ranks: ranks,
		paths: make([]string, len(t.Containers))}
	for i := range t.Containers {
		w.paths[i] = t.ContainerPath(int32(i), arrowio.PathSep)
	}
	st := Stats{Rows: map[string]int64{}}
	seen := map[string]bool{}
	for _, name := range tables {
		n, parts, err := w.table(name)
		if err != nil {
			return Stats{}, err
		}
		st.Rows[name] = int64(n)
		for _, p := range parts {
			seen[p] = true
		}
	}
	st.Partitions = len(seen)
	if err := w.containers(); err != nil {
		return Stats{}, err
	}
	if err := w.values(); err != nil {
		return Stats{}, err
	}
	m := marker{Version: Version, TimeUnit: "ns", Source: t.Files, Format: opt.Format,
		Rows:    rows{st.Rows["states"], st.Rows["links"], st.Rows["variables"], st.Rows["events"]},
		StartNs: int64(t.Start), EndNs: int64(t.End), Roles: true}
	if m.Source == nil {
		m.Source = []string{}
	}
	if opt.PartitionBy != "" {
		m.PartitionBy = &opt.PartitionBy
	}
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return Stats{}, err
	}
	return st, os.WriteFile(filepath.Join(dir, Marker), b, 0o644)
}

// rankOf returns the partition of the rows of each container, by
// container id: the path of the outermost container of the type asked
// for above it (or itself), or of its top-level container when there is
// none.
func rankOf(t *trace.Trace, by string) ([]string, error) {
	out := make([]string, len(t.Containers))
	for i := range out {
		out[i] = NoRank
	}
	if by == "" {
		return out, nil
	}
	present := map[string]bool{}
	for i, c := range t.Containers {
		if i != 0 {
			present[t.TypeName(c.Type)] = true
		}
	}
	wanted := by
	if by == Rank {
		wanted = ""
		for _, r := range RankTypes {
			if present[r] {
				wanted = r
				break
			}
		}
	} else if !present[by] {
		var names []string
		for n := range present {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, errs.Argument("partition_by", "the trace has no container type %q (it has %s)", by, strings.Join(names, ", "))
	}
	for i := 1; i < len(t.Containers); i++ {
		found, top := int32(-1), int32(i)
		for c := int32(i); c > 0; c = t.Containers[c].Parent {
			if wanted != "" && t.TypeName(t.Containers[c].Type) == wanted {
				found = c
			}
			top = c
		}
		if found < 0 {
			found = top
		}
		out[i] = t.ContainerPath(found, arrowio.PathSep)
	}
	return out, nil
}

// writer writes the tables of a dataset.
type writer struct {
	t      *trace.Trace
	dir    string
	cancel <-chan struct{}
	mem    memory.Allocator
	ranks  []string // the partition of each container's rows
	paths  []string // the path of each container
}

// batchRows is the number of rows of a record batch, and a row group.
const batchRows = 1 << 20

// table writes the table name, a file per partition, and returns its
// rows and its partitions.
func (w *writer) table(name string) (int, []string, error) {
	t := w.t
	var n int
	var containerOf func(i int) int32
	switch name {
	case "states":
		n, containerOf = t.States.Len(), func(i int) int32 { return t.States.At(i).Container }
	case "links":
		// A message belongs to its sender.
		n, containerOf = t.Links.Len(), func(i int) int32 { return t.Links.AtUnkeyed(i).From }
	case "variables":
		n, containerOf = t.Variables.Len(), func(i int) int32 { return t.Variables.At(i).Container }
	case "events":
		n, containerOf = t.Events.Len(), func(i int) int32 { return t.Events.At(i).Container }
	}
	// The rows of each partition, in the trace's order.
	index := map[string]int{}
	var parts []string
	var rows [][]int
	for i := range n {
		r := w.rankOfContainer(containerOf(i))
		k, ok := index[r]
		if !ok {
			k = len(parts)
			index[r] = k
			parts = append(parts, r)
			rows = append(rows, nil)
		}
		rows[k] = append(rows[k], i)
	}
	schema := Schemas[name]
	fileSchema := arrow.NewSchema(schema.Fields()[:schema.NumFields()-1], nil) // rank is in the directory's name
	for k, part := range parts {
		dir := filepath.Join(w.dir, name, "rank="+escape(part))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return 0, nil, err
		}
		if err := w.file(filepath.Join(dir, "part-0.parquet"), name, fileSchema, rows[k]); err != nil {
			return 0, nil, err
		}
	}
	return n, parts, nil
}

func (w *writer) rankOfContainer(c int32) string {
	if c < 0 || int(c) >= len(w.ranks) {
		return NoRank
	}
	return w.ranks[c]
}

// file writes the rows of the table name to the Parquet file path.
func (w *writer) file(path, name string, schema *arrow.Schema, rows []int) error {
	out, err := files.CreateParquet(path, schema, files.ParquetOptions{})
	if err != nil {
		return err
	}
	b := array.NewRecordBuilder(w.mem, schema)
	defer b.Release()
	for lo := 0; lo < len(rows); lo += batchRows {
		select {
		case <-w.cancel:
			out.Abort()
			return trace.ErrCanceled
		default:
		}
		for _, i := range rows[lo:min(lo+batchRows, len(rows))] {
			w.appendRow(b, name, i)
		}
		rec := b.NewRecordBatch()
		err := out.Write(rec)
		rec.Release()
		if err != nil {
			out.Abort()
			return err
		}
	}
	return out.Close()
}

// appendRow appends row i of the table name to b.
func (w *writer) appendRow(b *array.RecordBuilder, name string, i int) {
	t := w.t
	s := func(k int) *array.StringBuilder { return b.Field(k).(*array.StringBuilder) }
	i64 := func(k int) *array.Int64Builder { return b.Field(k).(*array.Int64Builder) }
	optional := func(k int, v string) {
		if v == "" {
			s(k).AppendNull()
		} else {
			s(k).Append(v)
		}
	}
	switch name {
	case "states":
		x := t.States.At(i)
		s(0).Append(w.path(x.Container))
		s(1).Append(t.TypeName(x.Type))
		s(2).Append(w.value(x.Value))
		optional(3, w.category(x.Value))
		i64(4).Append(int64(x.Start))
		i64(5).Append(int64(x.End))
		b.Field(6).(*array.Int32Builder).Append(x.Depth)
		optional(7, w.role(x.Value))
	case "links":
		l := t.Links.AtUnkeyed(i)
		s(0).Append(w.path(l.Container))
		s(1).Append(t.TypeName(l.Type))
		optional(2, w.value(l.Value))
		s(3).Append(w.path(l.From))
		s(4).Append(w.path(l.To))
		i64(5).Append(int64(l.Start))
		i64(6).Append(int64(l.End))
		if key := t.Links.AppendKey(nil, i); len(key) > 0 {
			s(7).BinaryBuilder.Append(key)
		} else {
			s(7).AppendNull()
		}
		size := b.Field(8).(*array.Float64Builder)
		if math.IsNaN(l.Size) {
			size.AppendNull()
		} else {
			size.Append(l.Size)
		}
	case "variables":
		v := t.Variables.At(i)
		s(0).Append(w.path(v.Container))
		s(1).Append(t.TypeName(v.Type))
		i64(2).Append(int64(v.Start))
		i64(3).Append(int64(v.End))
		b.Field(4).(*array.Float64Builder).Append(v.Value)
	case "events":
		e := t.Events.At(i)
		s(0).Append(w.path(e.Container))
		s(1).Append(t.TypeName(e.Type))
		optional(2, w.value(e.Value))
		optional(3, w.category(e.Value))
		i64(4).Append(int64(e.Time))
	}
}

func (w *writer) path(c int32) string {
	if c < 0 || int(c) >= len(w.paths) {
		return ""
	}
	return w.paths[c]
}

// value is the name of a value, "" for none.
func (w *writer) value(v int32) string {
	if v < 0 || int(v) >= len(w.t.Values) {
		return ""
	}
	return w.t.Values[v].Name
}

// role names the role of a value (trace.Role's String), "" for none.
func (w *writer) role(v int32) string {
	if v < 0 || int(v) >= len(w.t.Values) {
		return ""
	}
	return w.t.Values[v].Role.String()
}

// category is the category of a value, "" for none.
func (w *writer) category(v int32) string {
	if v < 0 || int(v) >= len(w.t.Values) {
		return ""
	}
	return w.t.Values[v].Category
}

// containers writes the hierarchy: the columns of arrowio's containers
// table that the dataset keeps, in its order (depth first).
func (w *writer) containers() error {
	all := arrowio.ContainersTable(w.t, w.mem)
	defer all.Release()
	schema := Schemas["containers"]
	cols := make([]arrow.Array, schema.NumFields())
	for k, f := range schema.Fields() {
		cols[k] = all.Column(all.Schema().FieldIndices(f.Name)[0])
	}
	rec := array.NewRecordBatch(schema, cols, all.NumRows())
	defer rec.Release()
	dir := filepath.Join(w.dir, "containers")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return files.Write(rec, filepath.Join(dir, "part-0.parquet"))
}

// values writes the values of the state types, in the trace's order: the
// order of a model's categories, which the states' partitions do not
// keep.
func (w *writer) values() error {
	schema := Schemas["values"]
	b := array.NewRecordBuilder(w.mem, schema)
	defer b.Release()
	for i, v := range w.t.Values {
		if v.Type < 0 || int(v.Type) >= len(w.t.Types) || w.t.Types[v.Type].Kind != trace.KindState {
			continue
		}
		b.Field(0).(*array.StringBuilder).Append(w.t.TypeName(v.Type))
		b.Field(1).(*array.StringBuilder).Append(v.Name)
		for k, s := range []string{v.Category, w.role(int32(i))} {
			if s == "" {
				b.Field(2 + k).AppendNull()
			} else {
				b.Field(2 + k).(*array.StringBuilder).Append(s)
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	dir := filepath.Join(w.dir, "values")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return files.Write(rec, filepath.Join(dir, "part-0.parquet"))
}

// escape percent-encodes a partition's value as Arrow's hive partitioning
// does (its URI segment encoding): every byte but ALPHA, DIGIT and -._~,
// in upper-case hexadecimal.
func escape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '.', c == '_', c == '~':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}
