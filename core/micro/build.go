package micro

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/names"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Innermost selects, at every instant, the state on top of the nesting
// stack (exclusive time), as Options.Depth.
const Innermost = -1

// buildReplays lets Build follow the innermost states by replaying the
// trace (replayStates); tests turn it off to check the replay against the
// computation on the whole trace.
var buildReplays = true

// MaxSlices bounds the number of slices: beyond it the quadratic
// aggregation algorithms stop being interactive (Ocelotl's limit).
const MaxSlices = 10000

// Options choose the window, the resolution, the metric and the entities
// of a model.
type Options struct {
	Slices int         // number of equal time slices, 1..MaxSlices
	Start  *trace.Time // window start; nil for the trace start
	End    *trace.Time // window end; nil for the trace end
	// Relative says that Start and End count from the trace's first
	// instant, as the front ends take them (an instant of the trace's
	// clock is accepted where it cannot be mistaken, and a window outside
	// the trace is an error: see trace.Window); false, that they are
	// instants of the trace's clock.
	Relative bool
	// Metric is what each cell measures; empty means StateDuration.
	Metric Metric
	// StateTypes restricts the model to entities of these type names (state
	// types for the state metrics, event types for EventCount, variable
	// types for VariableAverage); empty means every type of the metric's
	// kind. Types is a synonym, added to it.
	StateTypes []string
	Types      []string
	// Depth selects how nested states count: Innermost (the default) counts
	// the top of the stack only, so a resource is in exactly one state at a
	// time; Depth >= 0 counts the states at that nesting depth only.
	Depth int
	// Key says what the categories of state and event metrics are: the
	// values' grouped names (KeyGroup, the default when empty), their
	// names as written (KeyName), their domains (KeyDomain), their
	// categories (KeyCategory) or their types (KeyType). Variable metrics
	// ignore it.
	Key Key
	// ProfilerSpans keeps in the model the spans a profiler draws around
	// the program's work (trace.Role.ProfilerSpan: its own recording, the
	// program's steps, the copies of the host's annotations on the GPUs),
	// which it leaves out when false: their time is reported apart
	// (Model.LeftOut), and the resources that held only them are dropped.
	ProfilerSpans bool
	// MemoryBudget bounds the memory of the model's cells (see
	// checkMemory): 0 means budget.Default (a share of the memory
	// available), a negative value no limit.
	MemoryBudget int64
	// Cancel, once closed, stops Build, which returns
	// trace.ErrComputationCanceled and no model (a read is stopped by its
	// trace.ReadOptions.Cancel instead). Nil: never.
	Cancel <-chan struct{}
}

// Build computes the microscopic model of t.
//
// Resources are the containers of the types that can hold the selected
// entities; their ancestors form the hierarchy above them and containers of
// other types are left out. A resource without any entity in the window is
// kept as an all-zero leaf (as Ocelotl does in spatiotemporal mode). A
// resource that has entities of its own and also resources below it gets a
// synthetic leaf child, named "name (self)", for its own entities.
//
// Slices are half-open, [start_k, start_k+1), except the last, which also
// holds the window's end: an event exactly at the end counts in the last
// slice, and one exactly on an inner boundary in the slice it opens.
func Build(t *trace.Trace, opt Options) (*Model, error) {
	metric, err := ParseMetric(string(opt.Metric))
	if err != nil {
		return nil, err
	}
	if opt, err = opt.Resolve(t.Start, t.End); err != nil {
		return nil, err
	}
	start, end, err := window(t, opt)
	if err != nil {
		return nil, err
	}
	if err := checkGrid(opt, start, end); err != nil {
		return nil, err
	}
	kind := metric.entityKind()
	typeSel, err := selectTypes(t, kind, typeNames(opt))
	if err != nil {
		return nil, err
	}
	key, _ := ParseKey(string(opt.Key)) // checked by checkGrid
	if err := trace.Stopped(opt.Cancel); err != nil {
		return nil, err
	}
	used := scanUsage(t, kind, typeSel, opt)
	if err := trace.Stopped(opt.Cancel); err != nil {
		return nil, err
	}
	m, leafOf, categoryOf, slot, err := layout(t, metric, key, typeSel, used, opt, start, end)
	if err != nil {
		return nil, err
	}
	m.Origin = t.Start
	m.Steps = stepsOf(t, start, end)
	g := grid{start: start, end: end, n: int64(opt.Slices), nCat: len(m.States), leaves: len(m.Tree.Leaves)}
	if (metric == StateDuration || metric == StateAverageDuration) && opt.Depth == Innermost && buildReplays {
		// The model as a stream builds it, its memory checked as the
		// stream's (Accumulator.Model), sparse or dense.
		if fast, ok, err := replayStates(t, opt, start, end); ok {
			return fast, err
		}
	}
	// The dense builders below hold every value.
	if err := checkMemory(opt, g, metric); err != nil {
		return nil, err
	}
	if err := trace.Stopped(opt.Cancel); err != nil {
		return nil, err
	}
	// The builders look at Cancel as they go (a dense model of millions
	// of states or cells takes seconds).
	look := &trace.Looker{Cancel: opt.Cancel}
	var values []float64
	out := newLeftOuts(opt.Slices)
	outRole := make([]trace.Role, len(t.Values))
	for i, v := range t.Values {
		outRole[i] = opt.leftOutRole(v)
	}
	switch metric {
	case StateDuration, StateAverageDuration:
		values, err = buildStates(t, g, leafOf, slot, categoryOf, typeSel, opt.Depth, metric == StateAverageDuration, look, outRole, out)
		m.LeftOut = out.result(t.Values, opt, float64(g.n)*1e9)
	case EventCount:
		values, err = buildEvents(t, g, leafOf, categoryOf, typeSel, look, outRole, out)
		m.LeftOut = out.result(t.Values, opt, 1)
	case VariableAverage:
		values, err = buildVariables(t, g, leafOf, categoryOf, typeSel, look)
	}
	if err != nil {
		return nil, err
	}
	m.store(values)
	if err := trace.Stopped(opt.Cancel); err != nil {
		return nil, err
	}
	return m, nil
}

// checkMemory refuses, before they are allocated, cells that would not
// fit in the memory budget: each takes its value (8 bytes) and, while it
// is computed, a duration or count (8), and for the mean length of stays
// their count and total (12 more).
func checkMemory(opt Options, g grid, metric Metric) error {
	per := 16.0
	if metric == StateAverageDuration {
		per += 12
	}
	return checkBytes(opt, g, float64(g.leaves)*float64(g.n)*float64(g.nCat)*per)
}

// checkBytes refuses a model of g whose making needs need bytes over the
// memory budget.
func checkBytes(opt Options, g grid, need float64) error {
	return budget.Check("slices", fmt.Sprintf("a model of %d resources x %d slices x %d states", g.leaves, g.n, g.nCat),
		int64(min(need, math.MaxInt64/2)), opt.MemoryBudget,
		"use fewer slices, a shorter window, or fewer states or resources (state_types=, key=\"domain\" or key=\"type\")")
}

// typeNames returns the type names the options select (none: all).
func typeNames(opt Options) []string {
	return append(append([]string(nil), opt.StateTypes...), opt.Types...)
}

// checkGrid checks the resolution and the nesting option against the
// window [start, end].
func checkGrid(opt Options, start, end trace.Time) error {
	if opt.Slices < 1 || opt.Slices > MaxSlices {
		return errs.Argument("slices", "must be between 1 and %d, got %d", MaxSlices, opt.Slices)
	}
	if int64(end-start) > math.MaxInt64/int64(opt.Slices) {
		return errs.Argument("slices", "a %s s window cut into %d slices exceeds the nanosecond arithmetic; use a shorter window or fewer slices", end-start, opt.Slices)
	}
	if int64(end-start) < int64(opt.Slices) {
		return errs.Argument("slices", "%d slices do not fit in a window of %d ns", opt.Slices, end-start)
	}
	return checkOptions(opt)
}

// usage is what a model's layout needs to know of the entities: which
// containers hold entities of the selected types, which selected types
// have entities, and which have entities without a value, in the order of
// their first such entity. The entities the options leave out
// (Options.ProfilerSpans) count only in spans: containers holding them.
type usage struct {
	hasData []bool // by container
	used    []bool // by type
	noValue []int32
	spans   []bool // by container; nil for none
}

// scanUsage computes the usage of the entities of kind in t.
func scanUsage(t *trace.Trace, kind trace.Kind, typeSel []bool, opt Options) usage {
	u := usage{hasData: make([]bool, len(t.Containers)), used: make([]bool, len(t.Types)),
		spans: make([]bool, len(t.Containers))}
	seen := make([]bool, len(t.Types))
	mark := func(container, typ, value int32) {
		if !typeSel[typ] {
			return
		}
		if value >= 0 && kind != trace.KindVariable && opt.leftOutRole(t.Values[value]) != trace.RoleNone {
			u.spans[container] = true
			return
		}
		u.hasData[container] = true
		u.used[typ] = true
		if value == trace.None && kind != trace.KindVariable && !seen[typ] {
			seen[typ] = true
			u.noValue = append(u.noValue, typ)
		}
	}
	switch kind {
	case trace.KindState:
		for _, s := range t.States.All() {
			mark(s.Container, s.Type, s.Value)
		}
	case trace.KindEvent:
		for _, e := range t.Events.All() {
			mark(e.Container, e.Type, e.Value)
		}
	case trace.KindVariable:
		for _, v := range t.Variables.All() {
			mark(v.Container, v.Type, 0)
		}
	}
	return u
}

// layout makes the model's hierarchy and categories from the definitions
// of t (types, values, containers) and the usage of its entities: the
// model without its values, each container's leaf (-1 for none) and the
// category map (see categories), and by type the offset of a type's leaf
// from its container's first leaf (see typeLeaves).
func layout(t *trace.Trace, metric Metric, key Key, typeSel []bool, u usage, opt Options, start, end trace.Time) (m *Model, leafOf, categoryOf, slot []int32, err error) {
	categoryOf, labels := categories(t, metric.entityKind(), key, typeSel, u.noValue, opt)
	m = &Model{States: labels, Slices: opt.Slices, Start: start, End: end, Metric: metric}
	m.Colors = categoryColors(t, metric.entityKind(), key, categoryOf, len(labels))
	m.Notes = keyNotes(t, metric.entityKind(), key, typeSel, u.noValue, len(labels), opt)
	tl := splitTypes(t, metric.entityKind(), typeSel, u.used)
	leafOf, m.LeftOutRows = buildTree(t, typeSel, u, tl, m)
	if m.LeftOutRows > 0 && (len(m.Tree.Leaves) == 0 || m.Tree.Len() == 1) {
		// Only the profiler's spans (the root alone is left, a leaf):
		// the parameter that keeps them is the way out.
		return nil, nil, nil, nil, errs.Argument("profiler_spans", "every %s of the trace is a span a profiler draws around the program's work "+
			"(its recording, the steps, the copies of annotations on the GPU streams), which the model leaves out unless told to keep them",
			metric.Dimension())
	}
	if len(m.Tree.Leaves) == 0 {
		return nil, nil, nil, nil, errs.Argument("state_types", "no container can hold the selected %ss", metric.Dimension())
	}
	return m, leafOf, categoryOf, tl.slot, nil
}

// Resolve returns the options with the window of a trace that spans
// [first, last] on its clock: Start and End made instants of the trace's
// clock when they count from its start (Relative), checked against the
// trace (trace.Window). Options without a window or already on the
// clock are returned as they are.
func (o Options) Resolve(first, last trace.Time) (Options, error) {
	if !o.Relative {
		return o, nil
	}
	o.Relative = false
	if o.Start == nil && o.End == nil {
		return o, nil
	}
	start, end, err := trace.Window(o.Start, o.End, first, last)
	if err != nil {
		return o, err
	}
	o.Start, o.End = &start, &end
	return o, nil
}

// HasWindow reports whether the options set a bound of the window.
func (o Options) HasWindow() bool { return o.Start != nil || o.End != nil }

// Window returns the window of a model of a trace that spans [start,
// end]: the bounds the options set (Start, End), the trace's where they
// set none. The partial models of a trace's parts are built on the window
// it gives for the extent of all the parts. Options counting from the
// trace's start are resolved first (Resolve).
func (o Options) Window(start, end trace.Time) (trace.Time, trace.Time) {
	if o.Start != nil {
		start = *o.Start
	}
	if o.End != nil {
		end = *o.End
	}
	return start, end
}

func window(t *trace.Trace, opt Options) (start, end trace.Time, err error) {
	start, end = opt.Window(t.Start, t.End)
	if end <= start {
		return 0, 0, emptyWindow(opt, start, end, t.Start, t.End)
	}
	return start, end, nil
}

// emptyWindow is the error of the empty window [start, end] on a trace
// that spans [first, last]: a trace without duration needs a window.
func emptyWindow(opt Options, start, end, first, last trace.Time) error {
	if opt.Start == nil && opt.End == nil && first == last {
		return errs.NoDuration(first.Seconds())
	}
	return errs.Argument("window", "empty time window [%s, %s] s", start, end)
}

// selectTypes marks the types of the given kind named in names (all of
// them when names is empty).
func selectTypes(t *trace.Trace, kind trace.Kind, names []string) ([]bool, error) {
	sel := make([]bool, len(t.Types))
	any := false
	for i, ty := range t.Types {
		if ty.Kind == kind && (len(names) == 0 || slices.Contains(names, ty.Name)) {
			sel[i], any = true, true
		}
	}
	for _, n := range names {
		found := false
		for i, ty := range t.Types {
			if ty.Name == n && ty.Kind == kind {
				found = sel[i]
			}
		}
		if !found {
			return nil, errs.Argument("state_types", "the trace has no %s type %q", strings.ToLower(kind.String()), n)
		}
	}
	if !any {
		// No name was given (each one given was found above): the trace
		// itself has nothing of this kind, which no argument can mend.
		return nil, errs.Empty("", "the trace has no %ss to model", strings.ToLower(kind.String()))
	}
	return sel, nil
}

// categories numbers the categories of the selected types: the values of
// state and event types (an event or state without a value counts under
// its type's name), or the variable types themselves. A label is the
// value's name, prefixed by its type's name when two selected types share
// a name. categoryOf maps a value (states, events) or a type (variables)
// to its category; for states and events, categoryOf[len(t.Values)+typ]
// is the category of type typ's entities without a value (-1 if unused).
// With KeyGroup, values of one type and group (names.GroupsOf) share it,
// labelled by the group. With KeyCategory, values of one category share
// it, labelled by the category (by the type's name for values without
// one); KeyDomain and KeyType are alike (valueCategories).
func categories(t *trace.Trace, kind trace.Kind, key Key, typeSel []bool, noValue []int32, opt Options) (categoryOf []int32, labels []string) {
	categoryOf, labels = categoriesInOrder(t, kind, key, typeSel, noValue, opt)
	if kind != trace.KindVariable && opt.ProfilerSpans {
		spansLast(t.Values, categoryOf, labels)
	}
	return categoryOf, labels
}

// spansLast moves the categories of which every value is a profiler's
// span (trace.Role.ProfilerSpan) after the others, each part in its
// order: a model that keeps the spans (Options.ProfilerSpans) then has the
// default model's states first, in its order, and every figure colours
// them as the default model's do (the palette goes by a state's index).
func spansLast(values []trace.Value, categoryOf []int32, labels []string) {
	span := make([]bool, len(labels))
	for c := range span {
		span[c] = true
	}
	for i, c := range categoryOf {
		if c >= 0 && (i >= len(values) || !values[i].Role.ProfilerSpan()) {
			span[c] = false // a category of work, or of entities without a value
		}
	}
	to := make([]int32, len(labels))
	moved := make([]string, 0, len(labels))
	for _, last := range []bool{false, true} {
		for c, l := range labels {
			if span[c] == last {
				to[c] = int32(len(moved))
				moved = append(moved, l)
			}
		}
	}
	copy(labels, moved)
	for i, c := range categoryOf {
		if c >= 0 {
			categoryOf[i] = to[c]
		}
	}
}

// categoriesInOrder is categories with the categories in the order of
// the values (then of the types of entities without a value).
func categoriesInOrder(t *trace.Trace, kind trace.Kind, key Key, typeSel []bool, noValue []int32, opt Options) (categoryOf []int32, labels []string) {
	if kind == trace.KindVariable {
		categoryOf = make([]int32, len(t.Types))
		for i, ty := range t.Types {
			categoryOf[i] = -1
			if typeSel[i] {
				categoryOf[i] = int32(len(labels))
				labels = append(labels, ty.Name)
			}
		}
		return categoryOf, labels
	}
	if key == KeyCategory || key == KeyType || key == KeyDomain {
		return valueCategories(t, key, typeSel, noValue, opt)
	}
	// The name of each value: as written, or grouped (names.GroupsOf, over
	// every value of the trace, as the tables' group column).
	valueName := make([]string, len(t.Values))
	for i, v := range t.Values {
		valueName[i] = v.Name
	}
	if key == KeyGroup {
		typeName := make([]string, len(t.Values))
		thread := make([]bool, len(t.Values))
		for i, v := range t.Values {
			typeName[i], thread[i] = t.Types[v.Type].Name, v.Role == trace.RoleScheduledThread
		}
		valueName = names.GroupsOf(valueName, typeName, thread)
	}
	// The values the options leave out have no category (-1), as the
	// values of types not selected.
	modelled := func(v trace.Value) bool { return typeSel[v.Type] && opt.leftOutRole(v) == trace.RoleNone }
	count := map[string]int{}
	seen := map[[2]string]bool{}
	for i, v := range t.Values {
		if k := [2]string{t.Types[v.Type].Name, valueName[i]}; modelled(v) && !seen[k] {
			seen[k] = true
			count[valueName[i]]++
		}
	}
	categoryOf = make([]int32, len(t.Values)+len(t.Types))
	index := map[string]int32{}
	for i, v := range t.Values {
		categoryOf[i] = -1
		if !modelled(v) {
			continue
		}
		label := valueName[i]
		if count[label] > 1 {
			label = fmt.Sprintf("%s:%s", t.Types[v.Type].Name, label)
		}
		// Values of one type and name (told apart by their category, or
		// defined twice by the file, or grouped) are one category.
		c, ok := index[label]
		if !ok {
			c = int32(len(labels))
			index[label] = c
			labels = append(labels, label)
		}
		categoryOf[i] = c
	}
	for i := range t.Types {
		categoryOf[len(t.Values)+i] = -1
	}
	// Entities without a value get a category per type, in the order of
	// first use.
	for _, typ := range noValue {
		categoryOf[len(t.Values)+int(typ)] = int32(len(labels))
		labels = append(labels, t.Types[typ].Name)
	}
	return categoryOf, labels
}

// valueCategories is categories for KeyCategory: one category per
// distinct value category, in the order of the values; values without a
// category, and entities without a value, count under their type's name.
// For KeyType every value counts under its type's name; for KeyDomain
// under its name's domain (names.Domain), else as for KeyCategory.
func valueCategories(t *trace.Trace, key Key, typeSel []bool, noValue []int32, opt Options) (categoryOf []int32, labels []string) {
	index := map[string]int32{}
	label := func(s string) int32 {
		if i, ok := index[s]; ok {
			return i
		}
		i := int32(len(labels))
		index[s] = i
		labels = append(labels, s)
		return i
	}
	categoryOf = make([]int32, len(t.Values)+len(t.Types))
	for i := range categoryOf {
		categoryOf[i] = -1
	}
	for i, v := range t.Values {
		if typeSel[v.Type] && opt.leftOutRole(v) == trace.RoleNone {
			name := ""
			if key == KeyDomain {
				name = names.Domain(v.Name)
			}
			if name == "" && key != KeyType {
				name = v.Category
			}
			if name == "" {
				name = t.Types[v.Type].Name
			}
			categoryOf[i] = label(name)
		}
	}
	for _, typ := range noValue {
		categoryOf[len(t.Values)+int(typ)] = label(t.Types[typ].Name)
	}
	return categoryOf, labels
}

// categoryColors returns the colour the trace defines for each of n
// categories: a value's colour for categories of value names (the first
// value of the name or group that has one), a type's for categories of
// types. A category of value categories or domains (KeyCategory,
// KeyDomain) gathers values of several colours, and so has none.
func categoryColors(t *trace.Trace, kind trace.Kind, key Key, categoryOf []int32, n int) []string {
	colors := make([]string, n)
	set := func(c int32, color string) {
		if c >= 0 && colors[c] == "" {
			colors[c] = color
		}
	}
	if kind == trace.KindVariable {
		for i, ty := range t.Types {
			set(categoryOf[i], ty.Color)
		}
		return colors
	}
	if key == KeyDomain {
		return colors
	}
	if key == KeyName || key == KeyGroup {
		for i, v := range t.Values {
			set(categoryOf[i], v.Color)
		}
	}
	if key != KeyCategory {
		for i, ty := range t.Types {
			set(categoryOf[len(t.Values)+i], ty.Color)
		}
		if key == KeyType {
			for i, v := range t.Values {
				if categoryOf[i] >= 0 {
					set(categoryOf[i], t.Types[v.Type].Color)
				}
			}
		}
	}
	return colors
}

// category returns the category of an entity of type typ with value value.
func category(categoryOf []int32, nValues int, typ, value int32) int32 {
	if value == trace.None {
		return categoryOf[nValues+int(typ)]
	}
	return categoryOf[value]
}

// buildTree fills m.Tree, m.Container and m.StateType and returns, for
// each trace container, its (first) leaf index (-1 when it is not a
// resource). hasData tells the containers holding entities of the
// selected types; tl the containers that get a leaf per state type.
func buildTree(t *trace.Trace, typeSel []bool, u usage, tl typeLeaves, m *Model) (leafOf []int32, dropped int) {
	hasData := u.hasData
	holds := make([]bool, len(t.Types)) // container types that hold selected entities
	for i, ty := range t.Types {
		if typeSel[i] && ty.Parent != trace.None {
			holds[ty.Parent] = true
		}
	}
	// A container that held only entities the options leave out is not
	// a resource: a row that is nothing but a profiler's spans.
	spansOnly := func(c int32) bool { return u.spans != nil && u.spans[c] && !hasData[c] }
	isResource := func(c int32) bool { return c > 0 && holds[t.Containers[c].Type] && !spansOnly(c) }
	// keep[c]: c is a resource or has one below it.
	keep := make([]bool, len(t.Containers))
	for c := len(t.Containers) - 1; c > 0; c-- {
		if holds[t.Containers[c].Type] && spansOnly(int32(c)) {
			dropped++
		}
		if isResource(int32(c)) {
			keep[c] = true
		}
		if keep[c] {
			keep[t.Containers[c].Parent] = true
		}
	}
	rootName := "root"
	b := hier.NewBuilder(rootName)
	builderContainer := []int32{0}
	builderType := []int32{trace.None}
	ownLeaf := map[int32]int{} // container -> builder id of the node holding its states
	var walk func(c int32, node int)
	walk = func(c int32, node int) {
		var kids []int32
		for _, k := range t.Containers[c].Children {
			if keep[k] {
				kids = append(kids, k)
			}
		}
		if isResource(c) {
			own := tl.byContainerType[t.Containers[c].Type]
			switch {
			case len(own) > 0 && (len(kids) == 0 || hasData[c]):
				// A leaf per state type, consecutive (see typeLeaves).
				for i, typ := range own {
					id := b.Add(node, leafName(t.Containers[c].Name, t.Types[typ].Name))
					builderContainer = append(builderContainer, trace.None)
					builderType = append(builderType, typ)
					if i == 0 {
						ownLeaf[c] = id
					}
				}
			case len(kids) == 0:
				ownLeaf[c] = node
			case hasData[c]:
				id := b.Add(node, t.Containers[c].Name+" (self)")
				builderContainer = append(builderContainer, trace.None)
				builderType = append(builderType, trace.None)
				ownLeaf[c] = id
			}
		}
		for _, k := range kids {
			id := b.Add(node, t.Containers[k].Name)
			builderContainer = append(builderContainer, k)
			builderType = append(builderType, trace.None)
			walk(k, id)
		}
	}
	walk(0, 0)
	tree, ids := b.Build()
	m.Tree = tree
	m.Container = make([]int32, tree.Len())
	m.StateType = make([]int32, tree.Len())
	for old, id := range ids {
		m.Container[id] = builderContainer[old]
		m.StateType[id] = builderType[old]
	}
	leafOf = make([]int32, len(t.Containers))
	for i := range leafOf {
		leafOf[i] = -1
	}
	for c, old := range ownLeaf {
		if node := ids[old]; tree.IsLeaf(node) {
			leafOf[c] = tree.LeafLo[node]
		}
	}
	return leafOf, dropped
}

// StateCategories returns the states of the model of a trace with these
// definitions, built with key over every state type, in the model's order
// (labels, the trace's colour of each or ""), and the state of each value
// (stateOf, by value index; -1 for values of other kinds). Views that
// know states by name but build no model (the moment display) colour them
// by it, so that a state has the colour the model's figures give it.
// States of entities without a value, which the model lists after
// these, are not included.
func StateCategories(types []trace.Type, values []trace.Value, key Key) (stateOf []int32, labels, colors []string) {
	t := &trace.Trace{Types: types, Values: values}
	typeSel := make([]bool, len(types))
	for i, ty := range types {
		typeSel[i] = ty.Kind == trace.KindState
	}
	categoryOf, labels := categories(t, trace.KindState, key, typeSel, nil, Options{ProfilerSpans: true})
	return categoryOf[:len(values)], labels, categoryColors(t, trace.KindState, key, categoryOf, len(labels))
}
