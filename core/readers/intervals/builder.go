package intervals

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/nesting"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Options describe the table's hierarchy.
type Options struct {
	// Sep separates the names of a resource path; "/" if empty.
	Sep string
	// Levels names the container types, outermost first; the default names
	// are "Level 1", "Level 2"...
	Levels []string
	// StateType names the state type of rows that give none; "State" if
	// empty.
	StateType string
}

// Builder collects the rows of a table and turns them into a trace.
type Builder struct {
	opt        Options
	rows       []row
	containers []container       // containers[0] is the root
	byPath     map[string]int32  // container index by path
	types      []stateType       // state types, in order of first use
	typeIndex  map[typeKey]int32 // by container depth and name
	first      bool              // no row yet
	start, end trace.Time
	// declared ranks the values DeclareValue named, by type name;
	// declOrder lists them in that order.
	declared  map[declaredValue]int
	declOrder []declaredValue
}

type declaredValue struct {
	typ string
	stateValue
}

type row struct {
	container, typ, value int32
	start, end            trace.Time
}

type container struct {
	name, path string
	parent     int32
	depth      int // 1 for the root's children
}

type stateType struct {
	name   string
	depth  int
	values []stateValue
	index  map[stateValue]int32
}

// stateValue is a value of a state type: its name, its category and its
// role. Rows of one name and different categories or roles are different
// values, as the reader that set them defined them (a Kineto annotation
// on the host and its copy on a stream).
type stateValue struct {
	name, category string
	role           trace.Role
}

type typeKey struct {
	depth int
	name  string
}

// NewBuilder returns an empty builder.
func NewBuilder(opt Options) *Builder {
	if opt.Sep == "" {
		opt.Sep = "/"
	}
	if opt.StateType == "" {
		opt.StateType = "State"
	}
	return &Builder{
		opt:        opt,
		containers: []container{{parent: trace.None}},
		byPath:     map[string]int32{},
		typeIndex:  map[typeKey]int32{},
		first:      true,
	}
}

// Rows returns the number of rows added.
func (b *Builder) Rows() int { return len(b.rows) }

// Grow makes room for n more rows, for callers that know how many come.
func (b *Builder) Grow(n int) { b.rows = slices.Grow(b.rows, n) }

// Add adds the next row: a state of type typ ("" for Options.StateType)
// valued state on the resource at path, from start to end. The strings may
// point into memory that changes after the call (Arrow buffers): Add copies
// what it keeps.
func (b *Builder) Add(path, typ, state string, start, end trace.Time) error {
	return b.AddValue(path, typ, state, "", trace.RoleNone, start, end)
}

// AddValue is Add for a state whose value has the category category and
// the role role: the table recorded what its reader gave (a Parquet
// dataset of a trace), which the models read (their key category, the
// profiler's spans they leave out).
func (b *Builder) AddValue(path, typ, state, category string, role trace.Role, start, end trace.Time) error {
	n := len(b.rows)
	if end < start {
		return errs.Argument("end", "row %d: the state ends at %v s, before it starts at %v s", n, end, start)
	}
	c, err := b.resource(path, n)
	if err != nil {
		return err
	}
	if typ == "" {
		typ = b.opt.StateType
	}
	depth := b.containers[c].depth
	k := typeKey{depth, typ}
	ti, ok := b.typeIndex[k]
	if !ok {
		ti = int32(len(b.types))
		k.name = strings.Clone(typ)
		b.types = append(b.types, stateType{name: k.name, depth: depth, index: map[stateValue]int32{}})
		b.typeIndex[k] = ti
	}
	st := &b.types[ti]
	vi, ok := st.index[stateValue{state, category, role}]
	if !ok {
		vi = int32(len(st.values))
		v := stateValue{strings.Clone(state), strings.Clone(category), role}
		st.values = append(st.values, v)
		st.index[v] = vi
	}
	b.rows = append(b.rows, row{container: c, typ: ti, value: vi, start: start, end: end})
	if b.first || start < b.start {
		b.start = start
	}
	if b.first || end > b.end {
		b.end = end
	}
	b.first = false
	return nil
}

// Declare creates the resource at path and its ancestors, if no row made
// them yet: the order of the containers is that of the declarations and
// then of the rows, and a resource declared holds no state unless a row
// puts one there (a table of the states of a trace whose containers are
// listed apart: a Parquet dataset's).
func (b *Builder) Declare(path string) error {
	_, err := b.resource(path, -1)
	return err
}

// DeclareValue gives the values of the state type typ named state, of
// category category and with the role role, their place: the values rows use are defined in the order
// of their declarations, and those not declared after them, in the order
// the rows use them. (The value order is the order of a model's
// categories: a Parquet dataset lists its trace's values in its order.)
// A declared value no row uses is defined on every state type of its
// type's name, if the rows make one: so the traces of the parts of one
// table define the same values in the same order, which the merge of
// their models keeps (micro.ByPart).
func (b *Builder) DeclareValue(typ, state, category string, role trace.Role) {
	if b.declared == nil {
		b.declared = map[declaredValue]int{}
	}
	k := declaredValue{typ, stateValue{state, category, role}}
	if _, ok := b.declared[k]; !ok {
		b.declared[k] = len(b.declared)
		b.declOrder = append(b.declOrder, k)
	}
}

// Cover makes the trace span at least [start, end], whatever its rows'
// extent: the extent of the trace the table's states were taken from.
func (b *Builder) Cover(start, end trace.Time) {
	if b.first || start < b.start {
		b.start = start
	}
	if b.first || end > b.end {
		b.end = end
	}
	b.first = false
}

// resource returns the container at path, creating it and its ancestors.
func (b *Builder) resource(path string, n int) (int32, error) {
	if c, ok := b.byPath[path]; ok {
		return c, nil
	}
	if path == "" {
		return 0, errs.Argument("resource", "%s: the resource path is empty", where(n))
	}
	if depth := strings.Count(path, b.opt.Sep) + 1; depth > trace.MaxDepth {
		return 0, errs.Argument("resource", "%s: resource path %s is %d names deep, more than %d", where(n), errs.Quote(path), depth, trace.MaxDepth)
	}
	names := strings.Split(path, b.opt.Sep)
	parent := int32(0)
	// The names and paths of the containers made are parts of one copy
	// of path: a copy of each prefix was quadratic in the depth (100 MB
	// for a path of 10,000 one-letter names).
	own, end := "", 0
	for i, name := range names {
		if name == "" {
			return 0, errs.Argument("resource", "%s: resource path %q has an empty name (separator %q)", where(n), path, b.opt.Sep)
		}
		if i > 0 {
			end += len(b.opt.Sep)
		}
		end += len(name)
		prefix := path[:end]
		c, ok := b.byPath[prefix]
		if !ok {
			if own == "" {
				own = strings.Clone(path)
			}
			name, prefix = own[end-len(name):end], own[:end]
			if lv := b.opt.Levels; len(lv) > 0 && i >= len(lv) {
				return 0, errs.Argument("levels", "%s: resource path %q is %d deep, but only %d level names are given", where(n), path, len(names), len(lv))
			}
			c = int32(len(b.containers))
			b.containers = append(b.containers, container{name: name, path: prefix, parent: parent, depth: i + 1})
			b.byPath[prefix] = c
		}
		parent = c
	}
	return parent, nil
}

// where names the row n of the table, or a declared resource (n < 0).
func where(n int) string {
	if n < 0 {
		return "declared resource"
	}
	return fmt.Sprintf("row %d", n)
}

// levelName names the container type of depth d (from 1).
func (b *Builder) levelName(d int) string {
	if d <= len(b.opt.Levels) {
		return b.opt.Levels[d-1]
	}
	return fmt.Sprintf("Level %d", d)
}

// Finish checks that the states of each resource nest, and streams the
// trace into sink.
func (b *Builder) Finish(sink trace.Sink) error {
	if len(b.rows) == 0 {
		return errs.Argument("table", "the table has no rows")
	}
	depth, order, err := b.stack()
	if err != nil {
		return err
	}
	maxDepth := 0
	for _, c := range b.containers {
		maxDepth = max(maxDepth, c.depth)
	}
	// Container types are 0..maxDepth-1, one per level; state types follow.
	for d := 1; d <= maxDepth; d++ {
		parent := int32(d - 2)
		if d == 1 {
			parent = trace.None
		}
		sink.DefineType(trace.Type{Name: b.levelName(d), Kind: trace.KindContainer, Parent: parent})
	}
	for _, k := range b.declOrder {
		for i := range b.types {
			if st := &b.types[i]; st.name == k.typ {
				if _, ok := st.index[k.stateValue]; !ok {
					st.index[k.stateValue] = int32(len(st.values))
					st.values = append(st.values, k.stateValue)
				}
			}
		}
	}
	valueBase := make([]int32, len(b.types))
	var values int32
	for i, st := range b.types {
		sink.DefineType(trace.Type{Name: st.name, Kind: trace.KindState, Parent: int32(st.depth - 1)})
		valueBase[i] = values
		values += int32(len(st.values))
	}
	// The values by type, in order of first use; the declared ones first,
	// in their order (stable: the others keep theirs).
	type ref struct{ typ, value int32 }
	refs := make([]ref, 0, values)
	for i, st := range b.types {
		for j := range st.values {
			refs = append(refs, ref{int32(i), int32(j)})
		}
	}
	if len(b.declared) > 0 {
		rank := func(r ref) int {
			st := &b.types[r.typ]
			if k, ok := b.declared[declaredValue{st.name, st.values[r.value]}]; ok {
				return k
			}
			return len(b.declared)
		}
		slices.SortStableFunc(refs, func(x, y ref) int { return cmp.Compare(rank(x), rank(y)) })
	}
	// id is the value's index in the trace, by its place in refs' order
	// before the sort (valueBase[type] + value).
	id := make([]int32, values)
	for k, r := range refs {
		id[valueBase[r.typ]+r.value] = int32(k)
		v := b.types[r.typ].values[r.value]
		value := trace.Value{Type: int32(maxDepth) + r.typ, Name: v.name, Category: v.category, Role: v.role}
		if v.role == trace.RoleStep || v.role == trace.RoleStepCall {
			value.Step, _ = trace.ProfilerStep(v.name)
		}
		sink.DefineValue(value)
	}
	if t := trace.Held(sink); t != nil { // spare it the growing
		t.States.Grow(len(b.rows))
	}
	for _, c := range b.containers[1:] {
		sink.CreateContainer(trace.Container{Name: c.name, Alias: c.path, Type: int32(c.depth - 1), Parent: c.parent, Start: b.start})
	}
	for i, r := range b.rows {
		sink.State(trace.State{
			Container: r.container, Type: int32(maxDepth) + r.typ, Value: id[valueBase[r.typ]+r.value],
			Start: r.start, End: r.end, Depth: depth[i], Order: order[i],
		})
	}
	sink.Finish(b.start, b.end)
	return nil
}

// stack computes the nesting depth of every row and its rank among the
// rows of its resource and type by start (ties in row order), and fails on
// states that overlap without nesting: they nest as package nesting says,
// with half-open intervals (a state that ends when another starts does
// not hold it) on a single lane, since no stack can produce states that
// would need an overlap lane.
func (b *Builder) stack() (depth, order []int32, err error) {
	groups := b.groups()
	depth = make([]int32, len(b.rows))
	order = make([]int32, len(b.rows))
	t := nesting.Tracker{Containment: nesting.HalfOpen, MaxLanes: 1}
	for _, g := range groups {
		// Enclosing states first: among equal starts, the longest.
		enclosingFirst := func(i, j int32) int {
			a, c := &b.rows[i], &b.rows[j]
			return nesting.Compare(a.start, a.end, c.start, c.end)
		}
		if slices.IsSortedFunc(g, enclosingFirst) { // the common case: nothing to sort
			for k, i := range g {
				order[i] = int32(k)
			}
		} else {
			slices.SortStableFunc(g, func(i, j int32) int { return cmp.Compare(b.rows[i].start, b.rows[j].start) })
			for k, i := range g {
				order[i] = int32(k)
			}
			slices.SortStableFunc(g, enclosingFirst)
		}
		t.Reset()
		for _, i := range g {
			r := &b.rows[i]
			at, ok := t.Place(r.start, r.end)
			if !ok {
				k, _ := t.Innermost(r.start) // the state r overlaps
				lo, hi := min(g[k], i), max(g[k], i)
				return nil, nil, errs.Argument("start", "rows %d and %d: states of type %q on resource %q overlap without nesting (%v-%v s and %v-%v s)",
					lo, hi, b.types[r.typ].name, b.containers[r.container].path,
					b.rows[lo].start, b.rows[lo].end, b.rows[hi].start, b.rows[hi].end)
			}
			depth[i] = at.Depth
		}
	}
	return depth, order, nil
}

// groups lists the rows of each resource and state type, the groups in
// order of their first row so that the first overlap reported does not
// depend on map order.
func (b *Builder) groups() [][]int32 {
	var groups [][]int32
	add := func(g int, i int) { groups[g] = append(groups[g], int32(i)) }
	types := len(b.types)
	if dense := len(b.containers) * types; dense <= 1<<22 {
		index := make([]int32, dense)
		for i, r := range b.rows {
			k := int(r.container)*types + int(r.typ)
			if index[k] == 0 {
				groups = append(groups, nil)
				index[k] = int32(len(groups))
			}
			add(int(index[k])-1, i)
		}
		return groups
	}
	index := map[[2]int32]int{}
	for i, r := range b.rows {
		k := [2]int32{r.container, r.typ}
		g, ok := index[k]
		if !ok {
			g = len(groups)
			index[k] = g
			groups = append(groups, nil)
		}
		add(g, i)
	}
	return groups
}
