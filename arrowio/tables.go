package arrowio

import (
	"runtime"
	"strconv"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/names"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// PathSep separates names in the resource paths of every table.
const PathSep = "/"

// leafPaths returns the path of every leaf of m, in leaf order.
func leafPaths(m *micro.Model) []string {
	paths := make([]string, len(m.Tree.Leaves))
	for i, n := range m.Tree.Leaves {
		paths[i] = m.Tree.Path(n, PathSep)
	}
	return paths
}

// MicroTable is the long form of a microscopic model: one row per
// resource, slice and state whose value is not zero (the others are 0:
// a pivot fills them in), with the time spent (seconds) and the
// proportion of the slice. Models of other metrics (micro.Metric) have,
// instead of the last two, a column named after their categories
// ("state", "event" or "variable") and a "value" column.
//
// A cell of a profile holds a few states of thousands: the table grows
// with the values that are not zero, not with resources x slices x
// states.
func MicroTable(m *micro.Model, mem memory.Allocator) arrow.RecordBatch {
	rec, _ := microTable(m, mem, exportParts(m), nil)
	return rec
}

// MicroTableCancel is MicroTable stopped by cancel (Ctrl-C): each part
// looks every trace.StopEvery cells, and once closed it returns
// trace.ErrComputationCanceled and nothing.
func MicroTableCancel(m *micro.Model, mem memory.Allocator, cancel <-chan struct{}) (arrow.RecordBatch, error) {
	return microTable(m, mem, exportParts(m), cancel)
}

// microTable is MicroTable with its rows written in parts, one goroutine
// each: the cells split into that many ranges.
func microTable(m *micro.Model, mem memory.Allocator, parts int, cancel <-chan struct{}) (arrow.RecordBatch, error) {
	metric := m.Metric != "" && m.Metric != micro.StateDuration
	dimension := "state"
	if metric {
		dimension = m.Metric.Dimension()
	}
	cells, firstRows := splitCells(m, parts)
	c := newColumns(mem, firstRows[len(firstRows)-1])
	c.cancel = cancel
	w := microWriter{
		resource:   c.codeColumn("resource", leafPaths(m), nil),
		slice:      c.int32Column("slice"),
		sliceStart: c.float64Column("slice_start"),
		sliceEnd:   c.float64Column("slice_end"),
		state:      c.codeColumn(dimension, m.States, nil),
		bounds:     make([]float64, m.Slices+1),
		dt:         m.SliceDuration(),
	}
	if metric {
		w.value = c.float64Column("value")
	} else {
		w.duration = c.float64Column("duration")
		w.value = c.float64Column("proportion")
	}
	for k := range w.bounds {
		w.bounds[k] = m.SliceStart(k).Seconds()
	}
	// The parts write disjoint rows of the same columns: a part's first
	// row is the number of values that are not zero before its cells.
	inParts(len(cells)-1, func(p int) { w.fill(m, cells[p], cells[p+1], firstRows[p], cancel) })
	meta := modelMeta(m)
	if metric {
		meta["macroscope.metric"] = string(m.Metric)
	}
	return c.finish(meta) // nothing when a part stopped
}

// exportRowsPerPart is the fewest values of the model given to a goroutine
// writing its table: below, starting one costs more than it saves.
const exportRowsPerPart = 1 << 18

// exportParts is the number of goroutines writing m's table: one per
// core, for at least exportRowsPerPart values each. The columns are fresh
// memory, and a 10-million-row table (372 MiB) spends as much time in the
// kernel zeroing its pages on their first write as in writing them: both
// go as fast as the cores that write.
func exportParts(m *micro.Model) int {
	values := len(m.Values)
	if m.Cells != nil {
		values = m.Cells.NonZero()
	}
	return max(1, min(runtime.GOMAXPROCS(0), values/exportRowsPerPart))
}

// splitCells splits m's cells (leaf*Slices + slice) into parts ranges:
// part p holds cells cells[p] to cells[p+1]-1, and its rows start at
// firstRows[p]. firstRows[parts] is the number of rows. The values are
// counted on parts goroutines.
func splitCells(m *micro.Model, parts int) (cells, firstRows []int) {
	n := len(m.Tree.Leaves) * m.Slices
	cells = make([]int, parts+1)
	for p := range cells {
		cells[p] = n * p / parts
	}
	firstRows = make([]int, parts+1)
	inParts(parts, func(p int) { firstRows[p+1] = nonZeroIn(m, cells[p], cells[p+1]) })
	for p := range parts {
		firstRows[p+1] += firstRows[p]
	}
	return cells, firstRows
}

// nonZeroIn counts the values of cells lo to hi-1 that are not zero.
func nonZeroIn(m *micro.Model, lo, hi int) int {
	var values []float64
	if m.Cells != nil {
		_, values = m.Cells.Range(lo, hi)
	} else {
		X := len(m.States)
		values = m.Values[lo*X : hi*X]
	}
	n := 0
	for _, v := range values {
		if v != 0 {
			n++
		}
	}
	return n
}

// microWriter writes the rows of a model table in place.
type microWriter struct {
	resource, state      codes
	slice                []int32
	sliceStart, sliceEnd []float64
	value, duration      []float64 // duration nil for a metric's table
	bounds               []float64 // the slices' bounds (s): slice k is bounds[k] to bounds[k+1]
	dt                   float64   // a slice's duration (s)
}

// fill writes the rows of cells lo to hi-1 from row on: leaf by leaf,
// slice by slice, state by state, as the model's values run. A cell's
// rows share their resource and slice, written once for them all. It
// stops, the rows after left unwritten, once cancel is closed (looked at
// every trace.StopEvery cells).
func (w *microWriter) fill(m *micro.Model, lo, hi, row int, cancel <-chan struct{}) {
	X := len(m.States)
	for cell := lo; cell < hi; cell++ {
		if lookAt(cell-lo, cancel) {
			return
		}
		first := row
		if m.Cells != nil {
			states, values := m.Cells.Cell(cell)
			for j, v := range values {
				if v != 0 {
					w.value1(row, states[j], v)
					row++
				}
			}
		} else {
			for x, v := range m.Values[cell*X : (cell+1)*X] {
				if v != 0 {
					w.value1(row, int32(x), v)
					row++
				}
			}
		}
		leaf, k := cell/m.Slices, cell%m.Slices
		w.resource.fill(first, row, int32(leaf))
		fill(w.slice[first:row], int32(k))
		fill(w.sliceStart[first:row], w.bounds[k])
		fill(w.sliceEnd[first:row], w.bounds[k+1])
	}
}

// value1 writes value v of state x at row.
func (w *microWriter) value1(row int, x int32, v float64) {
	w.state.set(row, x)
	w.value[row] = v
	if w.duration != nil {
		w.duration[row] = v * w.dt
	}
}

// fill sets every element of s to v.
func fill[T any](s []T, v T) {
	for i := range s {
		s[i] = v
	}
}

func modelMeta(m *micro.Model) map[string]string {
	return map[string]string{
		"macroscope.slices": strconv.Itoa(m.Slices),
		"macroscope.start":  m.Start.String(),
		"macroscope.end":    m.End.String(),
	}
}

// PartitionTable lists the aggregates of a partition of model m: the
// hierarchy node and time range of each, its size, the rows of the
// overview it covers (row_first, row_last: the first and last index of
// its resources, 0 at the top), its mode state (the
// state with the largest mean proportion over the block) and that
// proportion, the mean proportion of every state (one column per state,
// named "prop:" + state), and its gain and loss.
func PartitionTable(m *micro.Model, in aggregate.Input, p *aggregate.Partition, mem memory.Allocator) arrow.RecordBatch {
	rec, _ := PartitionTableCancel(m, in, p, mem, nil)
	return rec
}

// PartitionTableCancel is PartitionTable stopped by cancel (Ctrl-C): each
// chunk of rows looks every trace.StopEvery aggregates, and once closed
// it returns trace.ErrComputationCanceled and nothing.
func PartitionTableCancel(m *micro.Model, in aggregate.Input, p *aggregate.Partition, mem memory.Allocator, cancel <-chan struct{}) (arrow.RecordBatch, error) {
	n := len(p.Parts)
	node := make([]string, n)
	depth := make([]int32, n)
	first := make([]int32, n)
	last := make([]int32, n)
	start := make([]float64, n)
	end := make([]float64, n)
	leaves := make([]int32, n)
	rowFirst, rowLast := make([]int32, n), make([]int32, n)
	mode := make([]int32, n)
	modeProp := make([]float64, n)
	gain := make([]float64, n)
	loss := make([]float64, n)
	props := make([][]float64, len(m.States))
	for x := range props {
		props[x] = make([]float64, n)
	}
	// The rows are independent: chunks of them are filled on all cores.
	parallelRows(n, func(lo, hi int) {
		means := make([]float64, len(m.States))
		path, pathOf := "", int32(-1) // consecutive aggregates often share their node
		for i := lo; i < hi; i++ {
			if lookAt(i-lo, cancel) {
				return
			}
			pt := p.Parts[i]
			if pt.Node != pathOf {
				path, pathOf = m.Tree.Path(pt.Node, PathSep), pt.Node
			}
			node[i] = path
			depth[i] = m.Tree.Depth[pt.Node]
			first[i], last[i] = pt.First, pt.Last
			start[i] = m.SliceStart(int(pt.First)).Seconds()
			end[i] = m.SliceStart(int(pt.Last) + 1).Seconds()
			leaves[i] = int32(m.Tree.NumLeaves(pt.Node))
			// The rows of the overview (and the Gantt view) the aggregate
			// covers, 0 at the top: its node's leaves, in the tree's order.
			rowFirst[i], rowLast[i] = m.Tree.LeafLo[pt.Node], m.Tree.LeafHi[pt.Node]-1
			aggregate.MeanValues(in, pt, means)
			x, v := aggregate.Mode(means)
			mode[i], modeProp[i] = int32(x), v
			if v == 0 {
				mode[i] = -1 // no activity: no mode (a null), not the first state
			}
			for x, v := range means {
				props[x][i] = v
			}
			gain[i], loss[i] = pt.Gain, pt.Loss
		}
	})
	c := newColumns(mem, n)
	c.cancel = cancel
	c.strings("node", node)
	c.int32s("depth", depth)
	c.int32s("first_slice", first)
	c.int32s("last_slice", last)
	c.float64s("start", start)
	c.float64s("end", end)
	c.int32s("leaves", leaves)
	c.int32s("row_first", rowFirst)
	c.int32s("row_last", rowLast)
	c.optionalCategories("mode", m.States, mode)
	c.float64s("mode_proportion", modeProp)
	for x, s := range m.States {
		c.float64s("prop:"+s, props[x])
	}
	c.float64s("gain", gain)
	c.float64s("loss", loss)
	meta := modelMeta(m)
	meta["macroscope.p"] = strconv.FormatFloat(p.P, 'g', -1, 64)
	meta["macroscope.gain"] = strconv.FormatFloat(p.Gain, 'g', -1, 64)
	meta["macroscope.loss"] = strconv.FormatFloat(p.Loss, 'g', -1, 64)
	meta["macroscope.pic"] = strconv.FormatFloat(p.Value, 'g', -1, 64)
	return c.finish(meta)
}

// parallelRows calls fill on chunks [lo, hi) of rows 0 to n, one per
// goroutine: up to GOMAXPROCS of them, and one per 4,096 rows (a small
// table is filled on the caller's).
func parallelRows(n int, fill func(lo, hi int)) {
	const minChunk = 4096
	workers := min(runtime.GOMAXPROCS(0), (n+minChunk-1)/minChunk)
	if workers <= 1 {
		fill(0, n)
		return
	}
	inParts(workers, func(w int) { fill(w*n/workers, (w+1)*n/workers) })
}

// inParts calls part(p) for p from 0 to parts-1, each on a goroutine of
// its own, and returns when all have.
func inParts(parts int, part func(p int)) {
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() { part(p) })
	}
	wg.Wait()
}

// LevelsTable lists distinct optimal partitions: the range of p where each
// is optimal, its gain, loss and number of aggregates, and which one is
// recommended (index recommended; -1 for none).
func LevelsTable(levels []aggregate.Level, recommended int, mem memory.Allocator) arrow.RecordBatch {
	n := len(levels)
	lo, hi := make([]float64, n), make([]float64, n)
	gain, loss := make([]float64, n), make([]float64, n)
	parts := make([]int64, n)
	rec := make([]bool, n)
	for i, l := range levels {
		lo[i], hi[i] = l.PLow, l.PHigh
		gain[i], loss[i] = l.Partition.Gain, l.Partition.Loss
		parts[i] = int64(max(l.Partition.NumParts, len(l.Partition.Parts)))
		rec[i] = i == recommended
	}
	c := newColumns(mem, n)
	c.float64s("p_low", lo)
	c.float64s("p_high", hi)
	c.float64s("gain", gain)
	c.float64s("loss", loss)
	c.int64s("aggregates", parts)
	c.bools("recommended", rec)
	return c.batch(nil)
}

// ContainersTable lists the containers of a trace (the root excluded) in
// depth-first order: path, name, type, parent path, depth, life span.
func ContainersTable(t *trace.Trace, mem memory.Allocator) arrow.RecordBatch {
	rec, _ := ContainersTableCancel(t, mem, nil)
	return rec
}

// ContainersTableCancel is ContainersTable stopped by cancel (Ctrl-C): it
// looks every trace.StopEvery containers and before each column (a
// million resources' paths), and once closed returns
// trace.ErrComputationCanceled and nothing.
func ContainersTableCancel(t *trace.Trace, mem memory.Allocator, cancel <-chan struct{}) (arrow.RecordBatch, error) {
	var order []int32
	var depths []int32
	var walk func(c int32, d int32)
	walk = func(c int32, d int32) {
		if c != 0 {
			order = append(order, c)
			depths = append(depths, d)
		}
		for _, k := range t.Containers[c].Children {
			walk(k, d+1)
		}
	}
	walk(0, 0)
	n := len(order)
	path, name, typ, parent := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	start, end := make([]float64, n), make([]float64, n)
	startNs, endNs := make([]int64, n), make([]int64, n)
	for i, id := range order {
		if lookAt(i, cancel) {
			break // finish gives nothing
		}
		c := t.Containers[id]
		path[i] = t.ContainerPath(id, PathSep)
		name[i] = c.Name
		typ[i] = t.TypeName(c.Type)
		parent[i] = t.ContainerPath(c.Parent, PathSep)
		start[i], end[i] = c.Start.Seconds(), c.End.Seconds()
		startNs[i], endNs[i] = int64(c.Start), int64(c.End)
	}
	c := newColumns(mem, n)
	c.cancel = cancel
	c.strings("path", path)
	c.strings("name", name)
	c.strings("type", typ)
	c.strings("parent", parent)
	c.int32s("depth", depths)
	c.float64s("start", start)
	c.float64s("end", end)
	c.int64s("start_ns", startNs)
	c.int64s("end_ns", endNs)
	return c.finish(nil)
}

// StatesTable lists the state intervals of a trace: container path, state
// type, value (the name as the file writes it), group (the name a person
// gives its instances, names.Group: the models' default categories),
// start, end, duration (seconds), nesting depth, the exact start and end
// in nanoseconds, the value's category (null if none), its domain (the
// models' key="domain") and the state's arguments as JSON text (null if
// none; see trace.ArgsSink).
func StatesTable(t *trace.Trace, mem memory.Allocator) arrow.RecordBatch {
	rec, _ := StatesTableCancel(t, mem, nil)
	return rec
}

// StatesTableCancel is StatesTable stopped by cancel (Ctrl-C): it looks
// every trace.StopEvery states and before each column, and once closed
// returns trace.ErrComputationCanceled and nothing.
func StatesTableCancel(t *trace.Trace, mem memory.Allocator, cancel <-chan struct{}) (arrow.RecordBatch, error) {
	n := t.States.Len()
	paths := make([]string, len(t.Containers))
	for i := range t.Containers {
		paths[i] = t.ContainerPath(int32(i), PathSep)
	}
	typeNames := make([]string, len(t.Types))
	for i, ty := range t.Types {
		typeNames[i] = ty.Name
	}
	valueNames := make([]string, len(t.Values))
	for i, v := range t.Values {
		valueNames[i] = v.Name
	}
	cont, typ, val, depth := make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
	start, end, dur := make([]float64, n), make([]float64, n), make([]float64, n)
	startNs, endNs := make([]int64, n), make([]int64, n)
	for i, s := range t.States.All() {
		if lookAt(i, cancel) {
			break // finish gives nothing
		}
		cont[i], typ[i], val[i], depth[i] = s.Container, s.Type, s.Value, s.Depth
		start[i], end[i], dur[i] = s.Start.Seconds(), s.End.Seconds(), (s.End - s.Start).Seconds()
		startNs[i], endNs[i] = int64(s.Start), int64(s.End)
	}
	c := newColumns(mem, n)
	c.cancel = cancel
	c.categories("container", paths, cont)
	c.categories("type", typeNames, typ)
	c.categories("value", valueNames, val)
	g := groupsOf(t)
	c.optionalCategories("group", g.groups, remap(val, g.group))
	c.float64s("start", start)
	c.float64s("end", end)
	c.float64s("duration", dur)
	c.int32s("depth", depth)
	c.int64s("start_ns", startNs)
	c.int64s("end_ns", endNs)
	addCategoryAndArgs(c, t, val, t.StateArgs, g)
	return c.finish(nil)
}

// valueGroups are the group and the domain of every value of a trace
// (names.GroupsOf, names.Domain; a value whose name tells no domain has its
// category's, else its type's, as the models' key="domain"), as codes
// into their distinct labels.
type valueGroups struct {
	groups, domains []string
	group, domain   []int32 // by value
}

func groupsOf(t *trace.Trace) valueGroups {
	var g valueGroups
	groupIndex, domainIndex := map[string]int32{}, map[string]int32{}
	code := func(index map[string]int32, labels *[]string, s string) int32 {
		k, ok := index[s]
		if !ok {
			k = int32(len(*labels))
			index[s] = k
			*labels = append(*labels, s)
		}
		return k
	}
	g.group, g.domain = make([]int32, len(t.Values)), make([]int32, len(t.Values))
	written, typeName := make([]string, len(t.Values)), make([]string, len(t.Values))
	thread := make([]bool, len(t.Values))
	for i, v := range t.Values {
		written[i], typeName[i], thread[i] = v.Name, t.TypeName(v.Type), v.Role == trace.RoleScheduledThread
	}
	grouped := names.GroupsOf(written, typeName, thread)
	for i, v := range t.Values {
		g.group[i] = code(groupIndex, &g.groups, grouped[i])
		d := names.Domain(v.Name)
		if d == "" {
			d = v.Category
		}
		if d == "" {
			d = t.TypeName(v.Type)
		}
		g.domain[i] = code(domainIndex, &g.domains, d)
	}
	return g
}

// remap returns the codes of values (value ids, None for none) by value
// (-1: null).
func remap(values []int32, byValue []int32) []int32 {
	out := make([]int32, len(values))
	for i, v := range values {
		out[i] = -1
		if v >= 0 {
			out[i] = byValue[v]
		}
	}
	return out
}

// addCategoryAndArgs adds the category column, the category of each
// entity's value (values: the entities' value ids), the domain column
// (g), and the args column, the entities' arguments (args, possibly
// shorter than values).
func addCategoryAndArgs(c *columns, t *trace.Trace, values []int32, args []string, g valueGroups) {
	var labels []string
	index := map[string]int32{}
	ofValue := make([]int32, len(t.Values))
	for i, v := range t.Values {
		ofValue[i] = -1
		if v.Category == "" {
			continue
		}
		k, ok := index[v.Category]
		if !ok {
			k = int32(len(labels))
			index[v.Category] = k
			labels = append(labels, v.Category)
		}
		ofValue[i] = k
	}
	codes := make([]int32, len(values))
	for i, v := range values {
		codes[i] = -1
		if v >= 0 {
			codes[i] = ofValue[v]
		}
	}
	c.optionalCategories("category", labels, codes)
	c.optionalCategories("domain", g.domains, remap(values, g.domain))
	all := make([]string, len(values))
	copy(all, args)
	c.optionalStrings("args", all)
}

// traceNames holds the labels the tables of a trace share: the path of
// every container and the names of types and values, indexed as in the
// trace.
type traceNames struct {
	paths, types, values []string
}

func namesOf(t *trace.Trace) traceNames {
	n := traceNames{
		paths:  make([]string, len(t.Containers)),
		types:  make([]string, len(t.Types)),
		values: make([]string, len(t.Values)),
	}
	for i := range t.Containers {
		n.paths[i] = t.ContainerPath(int32(i), PathSep)
	}
	for i := range t.Types {
		n.types[i] = t.Types[i].Name
	}
	for i := range t.Values {
		n.values[i] = t.Values[i].Name
	}
	return n
}

// spans fills the start, end and duration columns (seconds) and their
// exact nanosecond forms.
type spans struct {
	start, end, dur []float64
	startNs, endNs  []int64
}

func newSpans(n int) spans {
	return spans{make([]float64, n), make([]float64, n), make([]float64, n), make([]int64, n), make([]int64, n)}
}

func (s spans) set(i int, start, end trace.Time) {
	s.start[i], s.end[i], s.dur[i] = start.Seconds(), end.Seconds(), (end - start).Seconds()
	s.startNs[i], s.endNs[i] = int64(start), int64(end)
}

// VariablesTable lists the pieces of the trace's variables: container
// path, variable type, start, end, duration (seconds), value and the exact
// start and end in nanoseconds. A variable holds its value over the piece.
func VariablesTable(t *trace.Trace, mem memory.Allocator) arrow.RecordBatch {
	rec, _ := VariablesTableCancel(t, mem, nil)
	return rec
}

// VariablesTableCancel is VariablesTable stopped by cancel, as
// StatesTableCancel.
func VariablesTableCancel(t *trace.Trace, mem memory.Allocator, cancel <-chan struct{}) (arrow.RecordBatch, error) {
	names := namesOf(t)
	n := t.Variables.Len()
	cont, typ := make([]int32, n), make([]int32, n)
	value := make([]float64, n)
	s := newSpans(n)
	for i, v := range t.Variables.All() {
		if lookAt(i, cancel) {
			break
		}
		cont[i], typ[i], value[i] = v.Container, v.Type, v.Value
		s.set(i, v.Start, v.End)
	}
	c := newColumns(mem, n)
	c.cancel = cancel
	c.categories("container", names.paths, cont)
	c.categories("type", names.types, typ)
	c.float64s("start", s.start)
	c.float64s("end", s.end)
	c.float64s("duration", s.dur)
	c.float64s("value", value)
	c.int64s("start_ns", s.startNs)
	c.int64s("end_ns", s.endNs)
	return c.finish(nil)
}

// LinksTable lists the links of a trace: the container the link is
// declared in, link type, value (null if none), source and destination
// container paths, start, end, duration (seconds), key, size in bytes
// (null when the format does not tell) and the exact start and end in
// nanoseconds.
func LinksTable(t *trace.Trace, mem memory.Allocator) arrow.RecordBatch {
	rec, _ := LinksTableCancel(t, mem, nil)
	return rec
}

// LinksTableCancel is LinksTable stopped by cancel, as StatesTableCancel.
func LinksTableCancel(t *trace.Trace, mem memory.Allocator, cancel <-chan struct{}) (arrow.RecordBatch, error) {
	names := namesOf(t)
	n := t.Links.Len()
	cont, typ, val, from, to := make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
	size := make([]float64, n)
	s := newSpans(n)
	for i, l := range t.Links.Unkeyed() { // the keys go to their column below
		if lookAt(i, cancel) {
			break
		}
		cont[i], typ[i], val[i], from[i], to[i] = l.Container, l.Type, l.Value, l.From, l.To
		size[i] = l.Size
		s.set(i, l.Start, l.End)
	}
	c := newColumns(mem, n)
	c.cancel = cancel
	c.categories("container", names.paths, cont)
	c.categories("type", names.types, typ)
	c.optionalCategories("value", names.values, val)
	c.categories("source", names.paths, from)
	c.categories("destination", names.paths, to)
	c.float64s("start", s.start)
	c.float64s("end", s.end)
	c.float64s("duration", s.dur)
	c.optionalStringsOf("key", n, t.Links.AppendKey)
	c.optionalFloat64s("size", size)
	c.int64s("start_ns", s.startNs)
	c.int64s("end_ns", s.endNs)
	return c.finish(nil)
}

// EventsTable lists the point events of a trace: container path, event
// type, value (null if none), its group (names.Group), time (seconds),
// the exact time in nanoseconds, the value's category (null if none), its
// domain and the event's arguments as JSON text (null if none; see
// trace.ArgsSink).
func EventsTable(t *trace.Trace, mem memory.Allocator) arrow.RecordBatch {
	rec, _ := EventsTableCancel(t, mem, nil)
	return rec
}

// EventsTableCancel is EventsTable stopped by cancel, as
// StatesTableCancel.
func EventsTableCancel(t *trace.Trace, mem memory.Allocator, cancel <-chan struct{}) (arrow.RecordBatch, error) {
	names := namesOf(t)
	n := t.Events.Len()
	cont, typ, val := make([]int32, n), make([]int32, n), make([]int32, n)
	at := make([]float64, n)
	atNs := make([]int64, n)
	for i, e := range t.Events.All() {
		if lookAt(i, cancel) {
			break
		}
		cont[i], typ[i], val[i] = e.Container, e.Type, e.Value
		at[i], atNs[i] = e.Time.Seconds(), int64(e.Time)
	}
	c := newColumns(mem, n)
	c.cancel = cancel
	c.categories("container", names.paths, cont)
	c.categories("type", names.types, typ)
	c.optionalCategories("value", names.values, val)
	g := groupsOf(t)
	c.optionalCategories("group", g.groups, remap(val, g.group))
	c.float64s("time", at)
	c.int64s("time_ns", atNs)
	addCategoryAndArgs(c, t, val, t.EventArgs, g)
	return c.finish(nil)
}

// TypesTable lists the type hierarchy of a trace, one row per type in
// definition order: name, kind (Container, State, Variable, Event, Link),
// parent (the container type holding it; null at the top), alias (null if
// none), color (null if none), the number of values defined for it,
// for link types the container types of their source and destination,
// and role: what its reader says the type stands for (trace.Role's name:
// "thread", "instructions", "launch"...; "" for none).
func TypesTable(t *trace.Trace, mem memory.Allocator) arrow.RecordBatch {
	rec, _ := TypesTableCancel(t, mem, nil)
	return rec
}

// TypesTableCancel is TypesTable stopped by cancel (Ctrl-C): it looks
// every trace.StopEvery values and types and before each column, and once
// closed returns trace.ErrComputationCanceled and nothing.
func TypesTableCancel(t *trace.Trace, mem memory.Allocator, cancel <-chan struct{}) (arrow.RecordBatch, error) {
	n := len(t.Types)
	names := make([]string, n)
	kind, parent, source, dest := make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
	alias, color, roles := make([]string, n), make([]string, n), make([]string, n)
	values := make([]int64, n)
	for i, v := range t.Values {
		if lookAt(i, cancel) {
			break // finish gives nothing
		}
		if v.Type >= 0 && int(v.Type) < n {
			values[v.Type]++
		}
	}
	kinds := make([]string, len(kindLabels))
	for k := range kindLabels {
		kinds[k] = kindLabels[k].String()
	}
	for i, ty := range t.Types {
		if lookAt(i, cancel) {
			break
		}
		names[i], alias[i], color[i], roles[i] = ty.Name, ty.Alias, ty.Color, ty.Role.String()
		kind[i], parent[i] = int32(ty.Kind), ty.Parent
		source[i], dest[i] = trace.None, trace.None
		if ty.Kind == trace.KindLink {
			source[i], dest[i] = ty.Start, ty.End
		}
	}
	c := newColumns(mem, n)
	c.cancel = cancel
	c.strings("name", names)
	c.categories("kind", kinds, kind)
	c.optionalCategories("parent", names, parent)
	c.optionalStrings("alias", alias)
	c.optionalStrings("color", color)
	c.int64s("values", values)
	c.optionalCategories("source_type", names, source)
	c.optionalCategories("destination_type", names, dest)
	c.strings("role", roles)
	return c.finish(nil)
}

// kindLabels lists the kinds in the order of their values.
var kindLabels = []trace.Kind{trace.KindContainer, trace.KindState, trace.KindVariable, trace.KindEvent, trace.KindLink}
