package arrowio

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/kaleido"
)

// CallTreeTable lists the nodes of a call tree in preorder:
//
//	id          the node's id: the table's (int64 or string), or its
//	            preorder number for a tree built from a trace
//	parent      the parent's id; null for the root
//	state       trees from a trace only: the state's row in the trace's
//	            states table; null for the root and container nodes
//	depth       levels below the root
//	procedure   the procedure (dictionary; null when unknown)
//	pe          the processing element (dictionary; null when unknown)
//	start       start time in seconds; NaN when the tree has no times
func CallTreeTable(t *kaleido.Tree, mem memory.Allocator) arrow.RecordBatch {
	c := newColumns(mem, t.Len())
	treeColumns(c, t, 0, int32(t.Len()))
	return c.batch(map[string]string{"macroscope.height": strconv.Itoa(t.Height)})
}

// KaleidoscopeTable lists the nodes of a layout's view in preorder: the
// columns of CallTreeTable, then
//
//	kept           survives level condensing
//	level          displayed level (radius / level_spacing); null when not kept
//	shown_parent   id of the nearest kept proper ancestor, to which the
//	               node is drawn; null for the view's centre
//	weight         weight; null when not kept
//	sector_start   start of the sector, degrees counterclockwise from the
//	               positive x axis; NaN when not kept
//	sector_extent  extent of the sector in degrees; NaN when not kept
//	x, y           position in pixels from the centre, y up; NaN when not kept
//	drawn          kept and not hidden by node condensing
//	collapsed      drawn without its descendants (sector under min_sector)
//
// The schema's metadata holds the window and the condensing plan.
func KaleidoscopeTable(l *kaleido.Layout, mem memory.Allocator) arrow.RecordBatch {
	t := l.Tree
	n := l.Len()
	c := newColumns(mem, n)
	treeColumns(c, t, l.Root, l.Root+int32(n))

	level := make([]int32, n)
	weight := make([]int64, n)
	shown := make([]int32, n)
	hasShown := make([]bool, n)
	for i := range n {
		level[i], weight[i] = l.Level[i], l.Weight[i]
		if p := l.ShownParent[i]; p != kaleido.None {
			shown[i], hasShown[i] = l.Root+p, true
		}
	}
	c.bools("kept", l.Kept)
	c.nullableInt32s("level", level, l.Kept)
	c.add("shown_parent", keyArray(mem, t, shown, hasShown))
	c.nullableInt64s("weight", weight, l.Kept)
	c.float64s("sector_start", l.Sector)
	c.float64s("sector_extent", l.Extent)
	c.float64s("x", l.X)
	c.float64s("y", l.Y)
	c.bools("drawn", l.Drawn)
	c.bools("collapsed", l.Collapsed)
	cond := l.Condensing
	return c.batch(map[string]string{
		"macroscope.width":         strconv.FormatFloat(l.Width, 'g', -1, 64),
		"macroscope.level_spacing": strconv.FormatFloat(l.Spacing, 'g', -1, 64),
		"macroscope.min_sector":    strconv.FormatFloat(l.MinSector, 'g', -1, 64),
		"macroscope.root":          t.Key(l.Root),
		"macroscope.height":        strconv.Itoa(cond.Height),
		"macroscope.h_max":         strconv.Itoa(cond.MaxHeight),
		"macroscope.condensed":     strconv.FormatBool(cond.Active),
		"macroscope.c0":            strconv.Itoa(cond.C0),
		"macroscope.threshold":     strconv.Itoa(cond.Threshold),
		"macroscope.levels":        strconv.Itoa(l.Levels),
	})
}

// treeColumns adds the CallTreeTable columns of nodes [lo, hi).
func treeColumns(c *columns, t *kaleido.Tree, lo, hi int32) {
	n := int(hi - lo)
	nodes := make([]int32, n)
	parents := make([]int32, n)
	hasParent := make([]bool, n)
	depth := make([]int32, n)
	start := make([]float64, n)
	for i := range n {
		v := lo + int32(i)
		nodes[i], depth[i] = v, t.Depth[v]
		if p := t.Parent[v]; p != kaleido.None {
			parents[i], hasParent[i] = p, true
		}
		if t.Start != nil {
			start[i] = t.Start[v].Seconds()
		} else {
			start[i] = math.NaN()
		}
	}
	c.add("id", keyArray(c.mem, t, nodes, nil))
	c.add("parent", keyArray(c.mem, t, parents, hasParent))
	if t.IntKeys == nil && t.StrKeys == nil {
		state := make([]int64, n)
		valid := make([]bool, n)
		for i := range n {
			if r := t.Row[lo+int32(i)]; r != kaleido.None {
				state[i], valid[i] = int64(r), true
			}
		}
		c.nullableInt64s("state", state, valid)
	}
	c.int32s("depth", depth)
	c.nullableCategories("procedure", t.Procedures, t.Procedure, lo, hi)
	c.nullableCategories("pe", t.PEs, t.PE, lo, hi)
	c.float64s("start", start)
}

// keyArray returns the ids of nodes (null where valid is false): int64 or
// string as the tree was built, preorder numbers for a trace's tree.
func keyArray(mem memory.Allocator, t *kaleido.Tree, nodes []int32, valid []bool) arrow.Array {
	ok := func(i int) bool { return valid == nil || valid[i] }
	if t.StrKeys != nil {
		b := array.NewStringBuilder(mem)
		defer b.Release()
		for i, v := range nodes {
			if ok(i) {
				b.Append(t.StrKeys[t.Row[v]])
			} else {
				b.AppendNull()
			}
		}
		return b.NewArray()
	}
	b := array.NewInt64Builder(mem)
	defer b.Release()
	for i, v := range nodes {
		switch {
		case !ok(i):
			b.AppendNull()
		case t.IntKeys != nil:
			b.Append(t.IntKeys[t.Row[v]])
		default:
			b.Append(int64(v))
		}
	}
	return b.NewArray()
}

func (c *columns) nullableInt32s(name string, v []int32, valid []bool) {
	b := array.NewInt32Builder(c.mem)
	defer b.Release()
	b.AppendValues(v, valid)
	c.add(name, b.NewArray())
}

func (c *columns) nullableInt64s(name string, v []int64, valid []bool) {
	b := array.NewInt64Builder(c.mem)
	defer b.Release()
	b.AppendValues(v, valid)
	c.add(name, b.NewArray())
}

// nullableCategories adds a dictionary column of labels[codes[v]] for v in
// [lo, hi), null where the code is None or codes is nil.
func (c *columns) nullableCategories(name string, labels []string, codes []int32, lo, hi int32) {
	fixed, valid := make([]int32, hi-lo), make([]bool, hi-lo)
	if codes != nil {
		for v := lo; v < hi; v++ {
			if codes[v] != kaleido.None {
				fixed[v-lo], valid[v-lo] = codes[v], true
			}
		}
	}
	c.dictionary(name, labels, fixed, valid)
}

// TreeTableOptions tell how to read a tree table.
type TreeTableOptions struct {
	// OrderByStart orders siblings by start time (ties in row order)
	// rather than by row; it needs a start column.
	OrderByStart bool
}

// ImportCallTree reads a tree from the ArrowArrayStream at addr, which the
// producer (pyarrow) filled and this function releases. The stream's
// columns, by name:
//
//	id          int64 or string, unique
//	parent      same type as id; null for the root (exactly one row)
//	procedure   string, optional, nulls allowed
//	pe          string, optional, nulls allowed
//	start       float64 seconds, optional, no nulls, no NaN; or
//	start_ns    int64 nanoseconds
//
// Problems are *errs.ArgumentError naming the column and the row (rows
// count from 0 across the stream's batches).
func ImportCallTree(addr uintptr, opt TreeTableOptions) (*kaleido.Tree, error) {
	rdr, err := ImportStream(addr)
	if err != nil {
		return nil, err
	}
	defer rdr.Release()
	var tt treeTable
	for rdr.Next() {
		if err := tt.add(rdr.RecordBatch()); err != nil {
			return nil, err
		}
	}
	if err := rdr.Err(); err != nil {
		return nil, fmt.Errorf("arrowio: reading the tree table: %w", err)
	}
	return tt.tree(opt)
}

// treeTable gathers the columns of a tree table batch by batch.
type treeTable struct {
	seen                  bool
	stringIDs             bool
	intIDs, intParents    []int64
	strIDs, strParents    []string
	hasParent             []bool
	procedure, pe         []string
	hasProcedure, hasPE   []bool
	start                 []trace.Time
	withProcedure, withPE bool
	withStart             bool
	copies                map[string]string // see intern
}

func (tt *treeTable) add(rec arrow.RecordBatch) error {
	sc := rec.Schema()
	col := func(name string) arrow.Array {
		if idx := sc.FieldIndices(name); len(idx) > 0 {
			return rec.Column(idx[0])
		}
		return nil
	}
	id, parent := col("id"), col("parent")
	if id == nil || parent == nil {
		return errs.Argument("id", "the tree table needs columns id and parent, it has %v", fieldNames(sc))
	}
	base := len(tt.hasParent)
	first := !tt.seen
	tt.seen = true
	switch a := id.(type) {
	case *array.Int64:
		if !first && tt.stringIDs {
			return errs.Argument("id", "ids change type between batches")
		}
		p, ok := parent.(*array.Int64)
		if !ok {
			return errs.Argument("parent", "parents must have the type of ids (int64), got %s", parent.DataType())
		}
		for i := range a.Len() {
			if a.IsNull(i) {
				return errs.Argument("id", "row %d: the id is missing", base+i)
			}
			tt.intIDs = append(tt.intIDs, a.Value(i))
			tt.intParents = append(tt.intParents, p.Value(i))
			tt.hasParent = append(tt.hasParent, p.IsValid(i))
		}
	case array.StringLike:
		if !first && !tt.stringIDs {
			return errs.Argument("id", "ids change type between batches")
		}
		tt.stringIDs = true
		p, ok := parent.(array.StringLike)
		if !ok {
			return errs.Argument("parent", "parents must have the type of ids (string), got %s", parent.DataType())
		}
		for i := range a.Len() {
			if a.IsNull(i) {
				return errs.Argument("id", "row %d: the id is missing", base+i)
			}
			// Values alias the producer's buffers: copy them.
			tt.strIDs = append(tt.strIDs, strings.Clone(a.Value(i)))
			tt.strParents = append(tt.strParents, strings.Clone(p.Value(i)))
			tt.hasParent = append(tt.hasParent, p.IsValid(i))
		}
	default:
		return errs.Argument("id", "ids must be int64 or strings, got %s", id.DataType())
	}
	var err error
	if tt.procedure, tt.hasProcedure, tt.withProcedure, err = tt.appendLabels("procedure", col("procedure"), tt.procedure, tt.hasProcedure, tt.withProcedure, first, base); err != nil {
		return err
	}
	if tt.pe, tt.hasPE, tt.withPE, err = tt.appendLabels("pe", col("pe"), tt.pe, tt.hasPE, tt.withPE, first, base); err != nil {
		return err
	}
	return tt.addStart(col("start"), col("start_ns"), first, base)
}

// row names row r of the table with its id.
func (tt *treeTable) row(r int) string {
	if tt.stringIDs {
		return fmt.Sprintf("row %d (id %q)", r, tt.strIDs[r])
	}
	return fmt.Sprintf("row %d (id %d)", r, tt.intIDs[r])
}

func (tt *treeTable) addStart(seconds, ns arrow.Array, first bool, base int) error {
	present := seconds != nil || ns != nil
	if first {
		tt.withStart = present
	} else if present != tt.withStart {
		return errs.Argument("start", "the start column comes and goes between batches")
	}
	switch a := seconds.(type) {
	case nil:
	case *array.Float64:
		for i, s := range a.Float64Values() {
			if a.IsNull(i) {
				return errs.Argument("start", "%s: the start time is missing", tt.row(base+i))
			}
			t, ok := trace.FromSeconds(s)
			if !ok || math.IsInf(s, 0) {
				return errs.Argument("start", "%s: the start time is %v, not a finite number of seconds", tt.row(base+i), s)
			}
			tt.start = append(tt.start, t)
		}
		return nil
	default:
		return errs.Argument("start", "start times must be float64 seconds, got %s", seconds.DataType())
	}
	switch a := ns.(type) {
	case nil:
	case *array.Int64:
		for i, t := range a.Int64Values() {
			if a.IsNull(i) {
				return errs.Argument("start", "%s: the start time is missing", tt.row(base+i))
			}
			tt.start = append(tt.start, trace.Time(t))
		}
	default:
		return errs.Argument("start", "start_ns must be int64 nanoseconds, got %s", ns.DataType())
	}
	return nil
}

// intern returns a copy of s owned by Go: values alias the producer's
// buffers, which are released after their batch. Equal labels share one
// copy.
func (tt *treeTable) intern(s string) string {
	if v, ok := tt.copies[s]; ok {
		return v
	}
	if tt.copies == nil {
		tt.copies = map[string]string{}
	}
	v := strings.Clone(s)
	tt.copies[v] = v
	return v
}

// appendLabels appends a string column (nulls allowed) to out.
func (tt *treeTable) appendLabels(name string, a arrow.Array, out []string, valid []bool, with, first bool, base int) ([]string, []bool, bool, error) {
	if first {
		with = a != nil
	} else if (a != nil) != with {
		return nil, nil, false, errs.Argument(name, "the column comes and goes between batches")
	}
	if a == nil {
		return out, valid, with, nil
	}
	s, ok := a.(array.StringLike)
	if !ok {
		return nil, nil, false, errs.Argument(name, "must be strings, got %s (row %d on)", a.DataType(), base)
	}
	for i := range s.Len() {
		out = append(out, tt.intern(s.Value(i)))
		valid = append(valid, s.IsValid(i))
	}
	return out, valid, with, nil
}

func (tt *treeTable) tree(opt TreeTableOptions) (*kaleido.Tree, error) {
	attr := kaleido.Attributes{Start: tt.start, OrderByStart: opt.OrderByStart}
	if opt.OrderByStart && !tt.withStart {
		return nil, errs.Argument("order", "ordering siblings by start time needs a start column")
	}
	if tt.withProcedure {
		attr.Procedures, attr.Procedure = kaleido.Categorize(tt.procedure, tt.hasProcedure)
	}
	if tt.withPE {
		attr.PEs, attr.PE = kaleido.Categorize(tt.pe, tt.hasPE)
	}
	if tt.stringIDs {
		return kaleido.FromStringTable(tt.strIDs, tt.strParents, tt.hasParent, attr)
	}
	return kaleido.FromIntTable(tt.intIDs, tt.intParents, tt.hasParent, attr)
}

func fieldNames(sc *arrow.Schema) []string {
	var names []string
	for _, f := range sc.Fields() {
		names = append(names, f.Name)
	}
	return names
}
