package micro

import (
	"bytes"
	"cmp"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A Partial is the microscopic model of a part of a trace (some of its
// containers, some of its files, a range of its records) before the
// division that makes proportions: integer sums per container, category
// and slice, with the definitions that name them. Partials of the parts
// of one trace, sliced on the same window, add up (Merge) into the
// partial of the whole trace, and Model gives then exactly, bit for bit,
// the model Stream or Build give on the whole trace.
//
// Definitions are matched across partials by what they are, not by their
// indices: a type by its kind, name, alias, parent type and role, a
// value by its type, name, alias, category and role, a container by its path (its
// ancestors' names and aliases, its type, and its rank among the siblings
// of that name). The model's order of categories and resources follows
// the order of definitions, which Merge rebuilds as the whole trace's
// reader would have made it (see Order, and the late definitions a part
// makes after trace.DeferSink's Defer).
//
// Durations and counts are integers, so they add up exactly in any order.
// The sums of VariableAverage are floats: they are exact only when each
// resource's variables lie in one part (containers, files), which the
// partitions by container and by file ensure.
type Partial struct {
	Options    Options
	WinStart   trace.Time // the window sliced
	WinEnd     trace.Time
	Start, End trace.Time // the extent of the part's records
	Counts     Counts

	Types      []trace.Type
	Values     []trace.Value
	Containers []trace.Container // [0] is the root
	// TypeFirst and ValueFirst hold the earliest instant of an entity of
	// each type and value (math.MaxInt64 for none).
	TypeFirst, ValueFirst []trace.Time

	HasData  []bool // by container
	TypeUsed []bool // by type
	// SpanData tells, by container, that it has entities the options
	// leave out (Options.ProfilerSpans); the containers past its end have
	// none.
	SpanData []bool
	// Steps are the program's steps the part's states mark (Model.Steps),
	// wherever they lie: the window is cut once they are merged.
	Steps []Step
	// NoValue lists the types with entities without a value, in the order
	// of their first such entity, at NoValueFirst.
	NoValue      []int32
	NoValueFirst []trace.Time

	// Columns: a container and a category code (a value id >= 0, or
	// -1-type for entities without a value and for variable types), with
	// Slices sums each: Dur (durations in 1/Slices ns, or event counts),
	// Stays (StateAverageDuration), Sum (VariableAverage).
	ColCont []int32
	ColCode []int32
	Dur     [][]int64
	Stays   [][]int32
	Sum     [][]float64

	// NaN holds the first non-finite variable of each container.
	NaN []trace.Variable

	// LateTypes, LateValues and LateContainers count the definitions at
	// the end of Types, Values and Containers that the part made after
	// Defer (see trace.DeferSink): the whole trace's reader makes them
	// after the definitions of every part, so Merge puts them last. A
	// merged partial keeps as late those no part made in its own place.
	LateTypes, LateValues, LateContainers int

	// Notes are what the readers of the parts noted (skipped, tolerated,
	// missing), in the order of the parts: a part cut short must not make
	// a smaller model silently.
	Notes []string
}

// Order says in what order the reader of a whole trace defines what the
// parts define, which fixes the order of the merged model's categories.
type Order uint8

const (
	// ByPart: the whole trace is the parts one after the other (the
	// files of a run, the byte ranges of a file): a definition comes where
	// the first part that has it puts it.
	ByPart Order = iota
	// ByTime: the reader of the whole trace merges the parts by time
	// (OTF2's locations): a definition comes at the first instant it is
	// used, ties going to the earlier part. Definitions used by no entity
	// (the hierarchy) come first.
	ByTime
)

// noUse marks a definition that no entity used.
const noUse = trace.Time(math.MaxInt64)

// firstUse records that an entity of type typ and value value (or
// trace.None) happens at t.
func (a *Accumulator) firstUse(typ, value int32, t trace.Time) {
	a.now = t
	if typ >= 0 && int(typ) < len(a.typeFirst) && t < a.typeFirst[typ] {
		a.typeFirst[typ] = t
	}
	if value >= 0 && int(value) < len(a.valueFirst) && t < a.valueFirst[value] {
		a.valueFirst[value] = t
	}
}

// NewPartialAccumulator returns an accumulator that slices the window
// [start, end], fixed beforehand for all the parts of a trace, whatever
// the extent of this part (opt.Start and opt.End, if set, must be start
// and end).
func NewPartialAccumulator(opt Options, start, end trace.Time) (*Accumulator, error) {
	if end <= start {
		return nil, errs.Argument("window", "empty time window [%s, %s] s", start, end)
	}
	if err := checkGrid(opt, start, end); err != nil {
		return nil, err
	}
	return NewAccumulator(opt, start, end)
}

// Partial returns what the accumulator holds, once Finish has come:
// ErrNesting if the innermost states could not be followed.
func (a *Accumulator) Partial() (*Partial, error) {
	if !a.finished {
		return nil, errors.New("micro: the trace has not been read to its end")
	}
	if a.err != nil {
		return nil, a.err
	}
	if !a.active {
		return nil, errs.Argument("window", "the window [%s, %s] s cannot be sliced", a.g.start, a.g.end)
	}
	p := &Partial{
		Options: a.opt, WinStart: a.g.start, WinEnd: a.g.end, Start: a.start, End: a.end, Counts: a.counts,
		Types: a.skel.Types, Values: a.skel.Values, Containers: a.skel.Containers,
		TypeFirst: a.typeFirst, ValueFirst: a.valueFirst,
		HasData: a.hasData, SpanData: a.spanData, TypeUsed: a.typeUsed, NoValue: a.noValue, NoValueFirst: a.noValueFirst,
		ColCont: a.colCont, Steps: a.steps.list(),
	}
	if a.deferred {
		p.LateTypes = len(a.skel.Types) - a.lateFrom[0]
		p.LateValues = len(a.skel.Values) - a.lateFrom[1]
		p.LateContainers = len(a.skel.Containers) - a.lateFrom[2]
	}
	p.ColCode = make([]int32, len(a.colKey))
	for col, key := range a.colKey {
		p.ColCode[col] = a.keys[key]
	}
	// By column, so that merging columns is adding vectors.
	n := int(a.g.n)
	p.Dur = transpose(a.dur, len(a.colCont), n)
	p.Stays = transpose(a.stays, len(a.colCont), n)
	p.Sum = transpose(a.sum, len(a.colCont), n)
	var nans []nanVariable
	for _, nv := range a.nan {
		nans = append(nans, nv)
	}
	slices.SortFunc(nans, func(x, y nanVariable) int { return cmp.Compare(x.seq, y.seq) })
	for _, nv := range nans {
		p.NaN = append(p.NaN, nv.v)
	}
	return p, nil
}

func transpose[T any](bySlice [][]T, cols, n int) [][]T {
	if bySlice == nil {
		return nil
	}
	out := make([][]T, cols)
	for col := range out {
		out[col] = make([]T, n)
		for k := range n {
			out[col][k] = bySlice[k][col]
		}
	}
	return out
}

// partialData is Partial without its methods, for gob (which would call
// MarshalBinary again).
type partialData Partial

// MarshalBinary encodes the partial (gob), to ship it between processes.
func (p *Partial) MarshalBinary() ([]byte, error) {
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode((*partialData)(p))
	return b.Bytes(), err
}

// UnmarshalPartial decodes what MarshalBinary encoded.
func UnmarshalPartial(data []byte) (*Partial, error) {
	p := &Partial{}
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode((*partialData)(p)); err != nil {
		return nil, fmt.Errorf("micro: not an encoded partial model: %w", err)
	}
	return p, nil
}

// Merge adds up the partials of the parts of one trace, given in the
// order of the parts, into the partial of the whole: definitions are
// matched by identity and ordered as order says, sums are added. The
// partials must share the options and the window.
func Merge(order Order, parts ...*Partial) (*Partial, error) {
	if len(parts) == 0 {
		return nil, errors.New("micro: no partial model to merge")
	}
	for i, p := range parts {
		if err := p.check(); err != nil {
			return nil, fmt.Errorf("micro: partial model %d: %w", i, err)
		}
	}
	first := parts[0]
	for i, p := range parts[1:] {
		if p.WinStart != first.WinStart || p.WinEnd != first.WinEnd || !sameOptions(p.Options, first.Options) {
			return nil, fmt.Errorf("micro: partial model %d was built with another window or other options", i+1)
		}
	}
	m := &merger{order: order, out: &Partial{Options: first.Options, WinStart: first.WinStart, WinEnd: first.WinEnd,
		Start: first.Start, End: first.End}, typeIDs: map[string]int32{}, valueIDs: map[string]int32{},
		contIDs: map[string]int32{}, colIDs: map[[2]int32]int32{}}
	m.out.Containers = []trace.Container{{Name: "0", Alias: "0", Type: trace.None, Parent: trace.None}}
	m.out.HasData = []bool{false}
	m.out.SpanData = []bool{false}
	maps := make([]idMaps, len(parts))
	for i, p := range parts {
		maps[i] = idMaps{types: make([]int32, len(p.Types)), values: make([]int32, len(p.Values)),
			conts: make([]int32, len(p.Containers))}
		m.out.Start, m.out.End = min(m.out.Start, p.Start), max(m.out.End, p.End)
		c := &m.out.Counts // containers: counted once merged, below
		c.States += p.Counts.States
		c.Variables += p.Counts.Variables
		c.Links += p.Counts.Links
		c.Events += p.Counts.Events
	}
	m.types(parts, maps)
	m.values(parts, maps)
	m.containers(parts, maps)
	m.out.Counts.Containers = int64(len(m.out.Containers) - 1)
	m.usage(parts, maps)
	all := steps{}
	for _, p := range parts {
		all.addAll(p.Steps)
	}
	m.out.Steps = all.list()
	for i, p := range parts {
		if err := m.columns(p, maps[i]); err != nil {
			return nil, err
		}
	}
	return m.out, nil
}

func sameOptions(a, b Options) bool {
	same := func(x, y *trace.Time) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.Slices == b.Slices && same(a.Start, b.Start) && same(a.End, b.End) && a.Metric == b.Metric && a.ProfilerSpans == b.ProfilerSpans &&
		slices.Equal(a.StateTypes, b.StateTypes) && slices.Equal(a.Types, b.Types) && a.Depth == b.Depth && a.Key == b.Key
}

type idMaps struct{ types, values, conts []int32 }

type merger struct {
	order    Order
	out      *Partial
	typeIDs  map[string]int32
	valueIDs map[string]int32
	contIDs  map[string]int32
	colIDs   map[[2]int32]int32
}

// def is a definition of one part, with where it comes in the merged
// order.
type def struct {
	late       bool
	first      trace.Time
	part, item int
}

// sorted returns the definitions of the parts (n[i] in part i, first[i]
// their first uses, late[i] of them late, nil for none) in the merged
// order: the late ones after all the others.
func (m *merger) sorted(n []int, first [][]trace.Time, late []int) []def {
	var out []def
	for part, count := range n {
		for item := range count {
			d := def{first: math.MinInt64, part: part, item: item}
			d.late = late != nil && item >= count-late[part]
			if m.order == ByTime {
				if f := first[part][item]; f != noUse {
					d.first = f
				}
			}
			out = append(out, d)
		}
	}
	slices.SortStableFunc(out, func(x, y def) int {
		if x.late != y.late {
			if x.late {
				return 1
			}
			return -1
		}
		if c := cmp.Compare(x.first, y.first); c != 0 {
			return c
		}
		if c := cmp.Compare(x.part, y.part); c != 0 {
			return c
		}
		return cmp.Compare(x.item, y.item)
	})
	return out
}

func ref(ids []int32, i int32) int32 {
	if i < 0 || int(i) >= len(ids) {
		return trace.None
	}
	return ids[i]
}

func (m *merger) types(parts []*Partial, maps []idMaps) {
	n, first, late := make([]int, len(parts)), make([][]trace.Time, len(parts)), make([]int, len(parts))
	for i, p := range parts {
		n[i], first[i], late[i] = len(p.Types), p.TypeFirst, p.LateTypes
	}
	// A type's parent and link ends are container types, used by no
	// entity: they come before it in any order (a late type's are late,
	// or not, in its part's order).
	for _, d := range m.sorted(n, first, late) {
		t := parts[d.part].Types[d.item]
		ids := maps[d.part].types
		t.Parent, t.Start, t.End = ref(ids, t.Parent), ref(ids, t.Start), ref(ids, t.End)
		// The key of partition's runs (runSink), so that the parts add up
		// to the trace it reads.
		key := fmt.Sprintf("%d\x00%s\x00%s\x00%d\x00%d\x00%d\x00%d", t.Kind, t.Name, t.Alias, t.Parent, t.Start, t.End, t.Role)
		id, ok := m.typeIDs[key]
		if !ok {
			id = int32(len(m.out.Types))
			m.typeIDs[key] = id
			m.out.Types = append(m.out.Types, t)
			m.out.TypeFirst = append(m.out.TypeFirst, noUse)
			m.out.TypeUsed = append(m.out.TypeUsed, false)
			if d.late {
				m.out.LateTypes++
			}
		}
		m.out.TypeFirst[id] = min(m.out.TypeFirst[id], parts[d.part].TypeFirst[d.item])
		ids[d.item] = id
	}
}

func (m *merger) values(parts []*Partial, maps []idMaps) {
	n, first, late := make([]int, len(parts)), make([][]trace.Time, len(parts)), make([]int, len(parts))
	for i, p := range parts {
		n[i], first[i], late[i] = len(p.Values), p.ValueFirst, p.LateValues
	}
	for _, d := range m.sorted(n, first, late) {
		v := parts[d.part].Values[d.item]
		v.Type = ref(maps[d.part].types, v.Type)
		key := fmt.Sprintf("%d\x00%s\x00%s\x00%s\x00%d", v.Type, v.Name, v.Alias, v.Category, v.Role)
		id, ok := m.valueIDs[key]
		if !ok {
			id = int32(len(m.out.Values))
			m.valueIDs[key] = id
			m.out.Values = append(m.out.Values, v)
			m.out.ValueFirst = append(m.out.ValueFirst, noUse)
			if d.late {
				m.out.LateValues++
			}
		}
		m.out.ValueFirst[id] = min(m.out.ValueFirst[id], parts[d.part].ValueFirst[d.item])
		maps[d.part].values[d.item] = id
	}
}

// containers merges the hierarchies, part after part: a container is
// identified by its parent, type, name, alias and its rank among its
// siblings of that type, name and alias. The late containers of all the
// parts come after the others.
func (m *merger) containers(parts []*Partial, maps []idMaps) {
	for _, late := range []bool{false, true} {
		for i, p := range parts {
			ids := maps[i].conts
			ids[0] = 0
			rank := map[string]int{}
			from := len(p.Containers) - p.LateContainers
			for c := 1; c < len(p.Containers); c++ {
				k := p.Containers[c]
				k.Parent, k.Type = ref(ids, k.Parent), ref(maps[i].types, k.Type)
				k.Children = nil
				sib := fmt.Sprintf("%d\x00%d\x00%s\x00%s", k.Parent, k.Type, k.Name, k.Alias)
				key := fmt.Sprintf("%s\x00%d", sib, rank[sib])
				rank[sib]++
				if (c >= from) != late {
					continue // its parent, if not late, was mapped in the first round
				}
				id, ok := m.contIDs[key]
				if !ok {
					id = int32(len(m.out.Containers))
					m.contIDs[key] = id
					m.out.Containers = append(m.out.Containers, k)
					m.out.HasData = append(m.out.HasData, false)
					m.out.SpanData = append(m.out.SpanData, false)
					if k.Parent != trace.None {
						par := &m.out.Containers[k.Parent]
						par.Children = append(par.Children, id)
					}
					if late {
						m.out.LateContainers++
					}
				}
				ids[c] = id
			}
		}
	}
}

func (m *merger) usage(parts []*Partial, maps []idMaps) {
	n, first := make([]int, len(parts)), make([][]trace.Time, len(parts))
	for i, p := range parts {
		n[i], first[i] = len(p.NoValue), p.NoValueFirst
		for c, has := range p.HasData {
			if has {
				m.out.HasData[maps[i].conts[c]] = true
			}
		}
		for c, has := range p.SpanData {
			if has {
				m.out.SpanData[maps[i].conts[c]] = true
			}
		}
		for t, used := range p.TypeUsed {
			if used {
				m.out.TypeUsed[maps[i].types[t]] = true
			}
		}
	}
	seen := map[int32]bool{}
	for _, d := range m.sorted(n, first, nil) {
		typ := maps[d.part].types[parts[d.part].NoValue[d.item]]
		if !seen[typ] {
			seen[typ] = true
			m.out.NoValue = append(m.out.NoValue, typ)
			m.out.NoValueFirst = append(m.out.NoValueFirst, parts[d.part].NoValueFirst[d.item])
		}
	}
	for _, p := range parts {
		m.out.Notes = append(m.out.Notes, p.Notes...)
	}
	for i, p := range parts {
		for _, v := range p.NaN {
			v.Container, v.Type = maps[i].conts[v.Container], maps[i].types[v.Type]
			m.out.NaN = append(m.out.NaN, v)
		}
	}
}

// columns adds the columns of part p to the merged ones.
func (m *merger) columns(p *Partial, ids idMaps) error {
	out := m.out
	for col, c := range p.ColCont {
		cont := ids.conts[c]
		code := p.ColCode[col]
		if code >= 0 {
			code = ids.values[code]
		} else {
			code = -1 - ids.types[-1-code]
		}
		k := [2]int32{cont, code}
		j, ok := m.colIDs[k]
		if !ok {
			j = int32(len(out.ColCont))
			m.colIDs[k] = j
			out.ColCont, out.ColCode = append(out.ColCont, cont), append(out.ColCode, code)
			n := int(p.Options.Slices)
			if p.Dur != nil {
				out.Dur = append(out.Dur, make([]int64, n))
			}
			if p.Stays != nil {
				out.Stays = append(out.Stays, make([]int32, n))
			}
			if p.Sum != nil {
				out.Sum = append(out.Sum, make([]float64, n))
			}
		}
		if p.Dur != nil {
			for k, d := range p.Dur[col] {
				out.Dur[j][k] += d
			}
		}
		if p.Stays != nil {
			for k, d := range p.Stays[col] {
				out.Stays[j][k] += d
			}
		}
		if p.Sum != nil {
			for k, d := range p.Sum[col] {
				out.Sum[j][k] += d
			}
		}
	}
	return nil
}

// Model returns the model of the trace whose parts were merged into p,
// as Build and Stream give it on the whole trace: ErrWindow if the window
// sliced is not the one the options and the trace's extent give.
func (p *Partial) Model() (*Model, error) {
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("micro: partial model: %w", err)
	}
	a, err := NewAccumulator(p.Options, p.WinStart, p.WinEnd)
	if err != nil {
		return nil, err
	}
	for _, t := range p.Types {
		a.DefineType(t)
	}
	for _, v := range p.Values {
		a.DefineValue(v)
	}
	for _, c := range p.Containers[1:] {
		c.Children = nil
		a.CreateContainer(c)
	}
	a.finished, a.start, a.end, a.counts = true, p.Start, p.End, p.Counts
	if !a.active {
		return a.Model() // the window's error
	}
	copy(a.hasData, p.HasData)
	copy(a.spanData, p.SpanData)
	a.steps.addAll(p.Steps)
	copy(a.typeUsed, p.TypeUsed)
	a.noValue = p.NoValue
	for col, cont := range p.ColCont {
		code := p.ColCode[col]
		var key int32
		if code >= 0 {
			key = a.valueKey(code)
		} else {
			key = a.key(&a.keyOfType[-1-code], code)
		}
		// Columns of one category on a container (valueKey) share the
		// accumulator's column: their durations and stays add up, exactly.
		// A variable type's column is its own (a sum of floats is not
		// exact in every order).
		to := a.col(&a.conts[cont], cont, key)
		for k := range a.g.n {
			switch {
			case p.Sum != nil:
				a.sum[k][to] = p.Sum[col][k]
			default:
				a.dur[k][to] += p.Dur[col][k]
			}
			if p.Stays != nil {
				a.stays[k][to] += p.Stays[col][k]
			}
		}
	}
	for i, v := range p.NaN {
		if _, ok := a.nan[v.Container]; !ok {
			a.nan[v.Container] = nanVariable{i, v}
		}
	}
	return a.Model()
}

// check verifies that the parts of a partial fit together (an encoded
// partial comes from another process): every index in range, every
// column Slices long.
func (p *Partial) check() error {
	nt, nv, nc := len(p.Types), len(p.Values), len(p.Containers)
	bad := func(what string) error { return fmt.Errorf("inconsistent %s", what) }
	switch {
	case nc == 0 || p.Options.Slices < 1 || p.Options.Slices > MaxSlices:
		return bad("hierarchy or slices")
	case len(p.TypeFirst) != nt || len(p.TypeUsed) != nt || len(p.ValueFirst) != nv || len(p.HasData) != nc ||
		len(p.SpanData) > nc:
		return bad("definitions")
	case len(p.NoValueFirst) != len(p.NoValue) || len(p.ColCode) != len(p.ColCont):
		return bad("usage")
	case p.LateTypes < 0 || p.LateTypes > nt || p.LateValues < 0 || p.LateValues > nv ||
		p.LateContainers < 0 || p.LateContainers >= nc:
		return bad("late definitions")
	}
	typeOK := func(t int32) bool { return t == trace.None || (t >= 0 && int(t) < nt) }
	for _, t := range p.Types {
		if !typeOK(t.Parent) || !typeOK(t.Start) || !typeOK(t.End) {
			return bad("types")
		}
	}
	for _, v := range p.Values {
		if v.Type < 0 || int(v.Type) >= nt {
			return bad("values")
		}
	}
	for i, c := range p.Containers[1:] {
		if c.Parent < 0 || int(c.Parent) > i || c.Type < 0 || int(c.Type) >= nt {
			return bad("containers")
		}
	}
	for _, t := range p.NoValue {
		if t < 0 || int(t) >= nt {
			return bad("usage")
		}
	}
	for _, v := range p.NaN {
		if v.Container < 0 || int(v.Container) >= nc || v.Type < 0 || int(v.Type) >= nt {
			return bad("variables")
		}
	}
	seen := map[[2]int32]bool{}
	for col, c := range p.ColCont {
		code := p.ColCode[col]
		if c < 0 || int(c) >= nc || code >= int32(nv) || (code < 0 && int(-1-code) >= nt) || seen[[2]int32{c, code}] {
			return bad("columns")
		}
		seen[[2]int32{c, code}] = true
	}
	n := p.Options.Slices
	for _, cols := range []int{len(p.Dur), len(p.Stays), len(p.Sum)} {
		if cols != 0 && cols != len(p.ColCont) {
			return bad("cells")
		}
	}
	metric, err := ParseMetric(string(p.Options.Metric))
	if err != nil {
		return bad("options")
	}
	if cols := len(p.ColCont); cols > 0 {
		variable := metric == VariableAverage
		if variable != (len(p.Sum) == cols) || variable == (len(p.Dur) == cols) ||
			(metric == StateAverageDuration) != (len(p.Stays) == cols) {
			return bad("cells")
		}
	}
	for _, d := range p.Dur {
		if len(d) != n {
			return bad("cells")
		}
	}
	for _, d := range p.Stays {
		if len(d) != n {
			return bad("cells")
		}
	}
	for _, d := range p.Sum {
		if len(d) != n {
			return bad("cells")
		}
	}
	return nil
}
