package otf2

import (
	"fmt"
	"slices"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Container type names of location groups and locations, by their OTF2
// type. System tree nodes take their class name ("machine", "node"...).
var (
	groupTypeNames    = [...]string{"location group", "process", "accelerator"}
	locationTypeNames = [...]string{"location", "thread", "accelerator stream", "metric"}
)

func typeName(names []string, kind uint8) string {
	if int(kind) < len(names) {
		return names[kind]
	}
	return names[0]
}

// typeKey identifies a type: OTF2 archives define no types, so the reader
// derives them and defines each one the first time it is needed.
type typeKey struct {
	kind             trace.Kind
	name             string
	parent, from, to int32
}

type valueKey struct {
	typ                   int32
	name, category, alias string
}

// symbols defines types and values in the sink on first use.
type symbols struct {
	sink   trace.Sink
	types  map[typeKey]int32
	values map[valueKey]int32
}

func newSymbols(sink trace.Sink) *symbols {
	return &symbols{sink: sink, types: map[typeKey]int32{}, values: map[valueKey]int32{}}
}

func (s *symbols) typ(k typeKey) int32 {
	if id, ok := s.types[k]; ok {
		return id
	}
	id := int32(len(s.types))
	s.types[k] = id
	t := trace.Type{Name: k.name, Kind: k.kind, Parent: k.parent, Start: trace.None, End: trace.None, Role: typeRole(k)}
	if k.kind == trace.KindLink {
		t.Start, t.End = k.from, k.to
	}
	s.sink.DefineType(t)
	return id
}

// entityType returns the type of states, variables or events named name
// that live in containers of type parent.
func (s *symbols) entityType(kind trace.Kind, name string, parent int32) int32 {
	return s.typ(typeKey{kind: kind, name: name, parent: parent, from: trace.None, to: trace.None})
}

func (s *symbols) value(typ int32, name string) int32 { return s.categorized(typ, name, "") }

// categorized returns the value of type typ named name in category
// category: values of one name in several categories are distinct.
func (s *symbols) categorized(typ int32, name, category string) int32 {
	return s.define(valueKey{typ, name, category, ""}, trace.RoleNone)
}

// region returns the value of the regions named name of the paradigm
// named paradigm in the state type typ, with the role their paradigm and
// name give it (regionRole).
func (s *symbols) region(typ int32, name, paradigm string) int32 {
	return s.define(valueKey{typ, name, paradigm, ""}, regionRole(name, paradigm))
}

// aliased returns the value of type typ named name in category category
// with alias alias: values that differ by alias alone are distinct.
func (s *symbols) aliased(typ int32, name, category, alias string) int32 {
	role := trace.RoleNone
	if alias == collectiveRootAlias {
		role = trace.RoleRoot
	}
	return s.define(valueKey{typ, name, category, alias}, role)
}

// define returns the value k, delivered with role role when first met.
func (s *symbols) define(k valueKey, role trace.Role) int32 {
	if id, ok := s.values[k]; ok {
		return id
	}
	id := int32(len(s.values))
	s.values[k] = id
	s.sink.DefineValue(trace.Value{Type: k.typ, Name: k.name, Category: k.category, Alias: k.alias, Role: role})
	return id
}

// The paradigms (OTF2_PARADIGM_...) whose regions have roles.
const (
	paradigmOpenMP      = "OPENMP"
	paradigmMeasurement = "MEASUREMENT_SYSTEM"
)

// measurementRegions are the regions of the measurement system itself,
// whatever paradigm the archive gives them: Score-P's buffer flushes and
// the intervals its measurement was off.
var measurementRegions = map[string]bool{"TRACE BUFFER FLUSH": true, "MEASUREMENT OFF": true, "BUFFER FLUSH": true}

// openMPWaits are the words naming the OpenMP regions (Score-P's
// "!$omp implicit barrier @file:line"...) where a thread waits or
// synchronises rather than computes.
var openMPWaits = []string{"barrier", "taskwait", "taskgroup", "omp_set_lock", "omp_set_nest_lock", "flush"}

// regionRole returns the role of the regions named name of the paradigm
// named paradigm: the measurement system's own, OpenMP's constructs and
// waits, and the bodies the compilers outline for parallel regions
// (Score-P's compiler instrumentation records them).
func regionRole(name, paradigm string) trace.Role {
	switch {
	case paradigm == paradigmMeasurement || measurementRegions[strings.ToUpper(name)]:
		return trace.RoleMeasurement
	case paradigm == paradigmOpenMP:
		lower := strings.ToLower(name)
		if slices.ContainsFunc(openMPWaits, func(w string) bool { return strings.Contains(lower, w) }) {
			return trace.RoleParallelWait
		}
		return trace.RoleParallelRegion
	case trace.OutlinedParallelBody(name):
		return trace.RoleParallelRegion
	}
	return trace.RoleNone
}

// The metric members of Score-P's hardware counters of instructions and
// cycles (PAPI's presets, recorded as accumulated since the start).
const (
	papiInstructions = "PAPI_TOT_INS"
	papiCycles       = "PAPI_TOT_CYC"
)

// typeRole returns the role of the type k (trace.Role): the CPU threads
// of a location group are threads of its process, the "MPI
// collective" events name the communicator of the collective call they
// end, and its root, and the variables of PAPI's instructions and cycles
// are those counters (trace.RoleInstructions, RoleCycles).
func typeRole(k typeKey) trace.Role {
	switch {
	case k.kind == trace.KindContainer && k.name == locationTypeNames[1]:
		return trace.RoleThread
	case k.kind == trace.KindEvent && k.name == collectiveType:
		return trace.RoleCollectiveEnd
	case k.kind == trace.KindVariable && k.name == papiInstructions:
		return trace.RoleInstructions
	case k.kind == trace.KindVariable && k.name == papiCycles:
		return trace.RoleCycles
	}
	return trace.RoleNone
}

// hierarchy holds the containers made from the system tree, location
// groups and locations: system tree nodes nest as their parents say,
// location groups sit in their system tree node and locations in their
// location group. All exist for the whole trace.
type hierarchy struct {
	sym       *symbols
	defs      *definitions
	defsPath  string
	types     []int32          // type of each container, by index; the root's is None
	nodes     map[uint32]int32 // container of each system tree node
	groups    map[uint32]int32 // container of each location group
	locations []placed         // container of each location, in definition order
	locIndex  map[uint64]int   // location ID -> index in locations
}

// placed is a container and its type.
type placed struct {
	container, typ int32
}

func (h *hierarchy) fail(at int64, format string, args ...any) error {
	return &errs.FormatError{File: h.defsPath, AtOffset: true, Offset: at, Err: fmt.Errorf(format, args...)}
}

func (h *hierarchy) failDecode(e *decodeError) error {
	return &errs.FormatError{File: h.defsPath, AtOffset: true, Offset: e.offset, Err: errorString(e.msg)}
}

// create creates a container; unnamed ones take their alias as name
// (metric locations are often unnamed).
func (h *hierarchy) create(name, alias string, typ, parent int32, start trace.Time) int32 {
	if name == "" {
		name = alias
	}
	h.types = append(h.types, typ)
	h.sym.sink.CreateContainer(trace.Container{Name: name, Alias: alias, Type: typ, Parent: parent, Start: start, End: trace.Unset})
	return int32(len(h.types) - 1)
}

// build creates all containers at time start, parents first.
func (h *hierarchy) build(start trace.Time) error {
	if err := h.buildNodes(start); err != nil {
		return err
	}
	if err := h.buildGroups(start); err != nil {
		return err
	}
	return h.buildLocations(start)
}

// containerType returns the type of containers of the given name in
// containers of type parent.
func (h *hierarchy) containerType(name string, parent int32) int32 {
	return h.sym.typ(typeKey{kind: trace.KindContainer, name: name, parent: parent, from: trace.None, to: trace.None})
}

// buildNodes creates the system tree, each node after its parent.
func (h *hierarchy) buildNodes(start trace.Time) error {
	defs := make(map[uint32]*systemTreeNode, len(h.defs.nodes))
	for i := range h.defs.nodes {
		defs[h.defs.nodes[i].id] = &h.defs.nodes[i]
	}
	// levels is the depth of each node placed, 1 under the root; a node's
	// location groups and their locations nest two levels more.
	levels := make(map[uint32]int, len(defs))
	tooDeep := func(n *systemTreeNode) error {
		return h.fail(n.at, "system tree node %d is nested more than %d levels deep with its location groups and locations: not a trace a tool writes", n.id, trace.MaxDepth)
	}
	var place func(n *systemTreeNode, depth int) error
	place = func(n *systemTreeNode, depth int) error {
		if _, done := h.nodes[n.id]; done {
			return nil
		}
		parent, level := int32(0), 1
		if n.parent != undefined32 {
			p := defs[n.parent]
			switch {
			case p == nil:
				return h.fail(n.at, "system tree node %d has an undefined parent %d", n.id, n.parent)
			case depth > len(defs):
				return h.fail(n.at, "system tree node %d is its own ancestor", n.id)
			case depth+2 >= trace.MaxDepth: // its ancestors alone are too many
				return tooDeep(n)
			}
			if err := place(p, depth+1); err != nil {
				return err
			}
			parent, level = h.nodes[n.parent], levels[n.parent]+1
		}
		if level+2 > trace.MaxDepth {
			return tooDeep(n)
		}
		levels[n.id] = level
		what := "system tree node " + itoa(uint64(n.id))
		name, derr := h.defs.str(n.name, "name of "+what, n.at)
		if derr != nil {
			return h.failDecode(derr)
		}
		class, derr := h.defs.str(n.class, "class of "+what, n.at)
		if derr != nil {
			return h.failDecode(derr)
		}
		typ := h.containerType(class, h.types[parent])
		h.nodes[n.id] = h.create(name, "systemtreenode:"+itoa(uint64(n.id)), typ, parent, start)
		return nil
	}
	for i := range h.defs.nodes {
		if err := place(&h.defs.nodes[i], 0); err != nil {
			return err
		}
	}
	return nil
}

// buildGroups creates the location groups in their system tree nodes.
func (h *hierarchy) buildGroups(start trace.Time) error {
	for _, g := range h.defs.lgroups {
		parent := int32(0)
		if g.parent != undefined32 {
			c, ok := h.nodes[g.parent]
			if !ok {
				return h.fail(g.at, "location group %d is in system tree node %d, which is not defined", g.id, g.parent)
			}
			parent = c
		}
		name, derr := h.defs.str(g.name, "name of location group "+itoa(uint64(g.id)), g.at)
		if derr != nil {
			return h.failDecode(derr)
		}
		typ := h.containerType(typeName(groupTypeNames[:], g.kind), h.types[parent])
		h.groups[g.id] = h.create(name, "locationgroup:"+itoa(uint64(g.id)), typ, parent, start)
	}
	return nil
}

// buildLocations creates the locations in their location groups.
func (h *hierarchy) buildLocations(start trace.Time) error {
	for i, l := range h.defs.locations {
		parent := int32(0)
		if l.group != undefined32 {
			c, ok := h.groups[l.group]
			if !ok {
				return h.fail(l.at, "location %d is in location group %d, which is not defined", l.id, l.group)
			}
			parent = c
		}
		name, derr := h.defs.str(l.name, "name of location "+itoa(l.id), l.at)
		if derr != nil {
			return h.failDecode(derr)
		}
		typ := h.containerType(typeName(locationTypeNames[:], l.kind), h.types[parent])
		h.locations = append(h.locations, placed{h.create(name, "location:"+itoa(l.id), typ, parent, start), typ})
		h.locIndex[l.id] = i
	}
	return nil
}

// scope returns the container a metric instance reports on.
func (h *hierarchy) scope(kind uint8, id uint64) (placed, bool) {
	switch kind {
	case scopeLocation:
		if i, ok := h.locIndex[id]; ok {
			return h.locations[i], true
		}
	case scopeLocationGroup:
		if id <= undefined32 {
			if c, ok := h.groups[uint32(id)]; ok {
				return placed{c, h.types[c]}, true
			}
		}
	case scopeSystemTreeNode:
		if id <= undefined32 {
			if c, ok := h.nodes[uint32(id)]; ok {
				return placed{c, h.types[c]}, true
			}
		}
	}
	return placed{}, false
}
