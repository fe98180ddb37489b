// Package topology builds the topology-based view of Schnorr, Legrand and
// Vincent 2012 from a trace: a graph whose nodes are monitored resources
// (the hosts, links and routers of a SimGrid platform, or the processes
// of a run) and whose edges are their relations (the platform's topology,
// or the communications between processes).
//
// Each node carries two time-integrated metrics over a window: a capacity
// (power for hosts, bandwidth for links) that sets its size, and a
// utilization (power_used, bandwidth_used) whose ratio to the capacity
// fills it. Sizes are scaled per kind of node: the largest node of a kind
// gets the maximum size.
//
// Spatial aggregation replaces a group of the resource hierarchy (a
// cluster, a site) by one node per kind, whose metrics are the sums over
// its members; edges are inherited by the visible ancestors of their ends,
// without self loops, duplicates merged with a count. Expanding the group
// restores what was there. Positions evolve smoothly: a collapsed group
// appears at the centroid of the nodes it replaces; an expanded member
// reappears at its last position (moved along with its group since), or
// else next to its group's node; and the force-directed layout
// (package forcelayout) continues from the current positions.
package topology

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// PathSep separates the container names of a path.
const PathSep = "/"

// Default metric names, tried in order for each kind of node: SimGrid
// traces call a host's capacity "power" (older versions) or "speed", a
// link's "bandwidth", and their utilization the same name with "_used".
var (
	DefaultSize = []string{"power", "speed", "bandwidth"}
	DefaultFill = []string{"power_used", "speed_used", "bandwidth_used"}
)

// platformKinds are the container types of a SimGrid platform.
var platformKinds = []string{"HOST", "LINK", "ROUTER"}

func isPlatformKind(name string) bool {
	for _, k := range platformKinds {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// Edge sources.
const (
	EdgesAuto           = ""               // platform links if the trace has any, else every link type
	EdgesPlatform       = "platform"       // links between HOST, LINK and ROUTER containers
	EdgesCommunications = "communications" // every other link type
)

// Charges of aggregated nodes in the layout. Nodes repel by Coulomb's law,
// K2 q_i q_j / d^2. The default is the rule of Viva's paper and of Triva:
// an aggregate carries the sum of its members' charges, so it pushes the
// rest of the graph as hard as its members did and the drawing keeps its
// extent when a group collapses. Two aggregates of m members then repel
// m^2 times more than two nodes and a collapsed platform spreads thinly;
// the square root makes that m, and an aggregate repels a single node
// sqrt(m) times more.
const (
	ChargeMembers = "members" // the number of nodes grouped: the sum of their charges (default)
	ChargeSqrt    = "sqrt"    // the square root of the number of nodes grouped
	ChargeUnit    = "unit"    // 1, as a single node
)

// Options choose what the graph shows.
type Options struct {
	// Kinds are the container types whose containers are the nodes. Nil:
	// the types at the ends of the edge link types, and the platform types
	// (HOST, LINK, ROUTER) the trace has unless the edges are all
	// communications.
	Kinds []string
	// EdgeTypes are the link types whose links are edges. Nil: chosen by
	// EdgeSource.
	EdgeTypes []string
	// EdgeSource is EdgesAuto, EdgesPlatform or EdgesCommunications; it is
	// ignored when EdgeTypes is given.
	EdgeSource string
	// Size and Fill are the candidate names of the capacity and the
	// utilization variables: each kind of node uses the first one its
	// containers have. Nil: DefaultSize, DefaultFill. SizeByKind and
	// FillByKind name the variable of a kind explicitly (overriding the
	// candidates for that kind).
	Size, Fill             []string
	SizeByKind, FillByKind map[string]string
	// Start and End bound the time window (nil: the whole trace).
	Start, End *trace.Time
	// Charge is the charge of an aggregated node in the layout:
	// ChargeMembers (default), ChargeSqrt or ChargeUnit.
	Charge string
	// Cancel, once closed, stops Build: it looks at its first container,
	// then every trace.StopEvery containers, links or variables, and
	// returns trace.ErrComputationCanceled and no graph. Nil: never.
	Cancel <-chan struct{}
}

// leafEdge is a relation between two nodes of the full graph.
type leafEdge struct {
	a, b  int32 // leaf indices, a < b
	count int   // links merged
}

// linkRec is a trace link between two leaves, kept to recount edges when
// the window changes.
type linkRec struct {
	a, b       int32
	start, end trace.Time
	structural bool // a platform relation: counted whatever the window
}

// Topology is the graph of a trace and the state of its exploration: the
// window, the collapsed groups and the positions. It is not safe for
// concurrent use.
type Topology struct {
	tr *trace.Trace

	kinds    []string // kind names, in order of first node
	leaves   []int32  // container of each leaf node
	leafKind []int32  // kind of each leaf
	leafOf   []int32  // leaf index of each container, -1 if not a node
	paths    []string // path of every container
	byPath   map[string]int32
	isGroup  []bool // containers that hold nodes without being nodes

	sizeName, fillName []string // per kind: its name ("" if none)

	links     []linkRec
	edgeTypes []string
	skipped   int // links with an end outside the nodes, or both in one node

	start, end trace.Time
	capInt     []float64 // per leaf: integral of the capacity over the window (NaN: no variable)
	useInt     []float64 // per leaf: integral of the utilization
	capMean    []float64 // per leaf: time average of the capacity (its value at the instant of an empty window)
	useMean    []float64 // per leaf: time average of the utilization
	edges      []leafEdge

	charge    string
	collapsed map[int32]bool        // collapsed groups (container ids)
	pos       map[string][2]float64 // last known position of every node ever shown
	born      map[string][2]float64 // position of an aggregated node when it appeared
	view      *View
	laidOut   bool // the view's positions come from a layout run since its last change
	// look stops a change made through Change (its Cancel): the new
	// window's integrals and edges, the view's rebuild. Its zero value,
	// outside Change, never stops.
	look trace.Looker
}

// Build reads the graph of t.
func Build(t *trace.Trace, opt Options) (*Topology, error) {
	tp := &Topology{
		tr: t, collapsed: map[int32]bool{}, pos: map[string][2]float64{}, born: map[string][2]float64{},
		charge: opt.Charge,
	}
	switch tp.charge {
	case "":
		tp.charge = ChargeMembers
	case ChargeMembers, ChargeSqrt, ChargeUnit:
	default:
		return nil, errs.Argument("charge", "must be %q, %q or %q, got %q", ChargeMembers, ChargeSqrt, ChargeUnit, opt.Charge)
	}
	look := &trace.Looker{Cancel: opt.Cancel}
	if err := look.Stopped(1); err != nil {
		return nil, err
	}
	linkTypes, err := tp.chooseEdgeTypes(opt)
	if err != nil {
		return nil, err
	}
	kindTypes, err := tp.chooseKinds(opt, linkTypes)
	if err != nil {
		return nil, err
	}
	if err := tp.indexContainers(kindTypes, look); err != nil {
		return nil, err
	}
	if len(tp.leaves) == 0 {
		return nil, errs.Argument("kinds", "the trace has no container of the types %s", strings.Join(tp.kindNames(kindTypes), ", "))
	}
	if err := tp.chooseMetrics(opt); err != nil {
		return nil, err
	}
	if err := tp.collectLinks(linkTypes, look); err != nil {
		return nil, err
	}
	start, end := t.Start, t.End
	if opt.Start != nil {
		start = *opt.Start
	}
	if opt.End != nil {
		end = *opt.End
	}
	if err := tp.setWindow(start, end, look); err != nil {
		return nil, err
	}
	return tp, nil
}

func (tp *Topology) kindNames(types []int32) []string {
	var names []string
	for _, ty := range types {
		if n := tp.tr.Types[ty].Name; !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// chooseEdgeTypes returns the link types whose links are edges.
func (tp *Topology) chooseEdgeTypes(opt Options) ([]int32, error) {
	t := tp.tr
	var platform, other, all []int32
	for i, ty := range t.Types {
		if ty.Kind != trace.KindLink {
			continue
		}
		all = append(all, int32(i))
		if tp.structural(int32(i)) {
			platform = append(platform, int32(i))
		} else {
			other = append(other, int32(i))
		}
	}
	names := func(types []int32) string {
		var s []string
		for _, ty := range types {
			if n := t.Types[ty].Name; !slices.Contains(s, n) {
				s = append(s, n)
			}
		}
		if len(s) == 0 {
			return "none"
		}
		return strings.Join(s, ", ")
	}
	if opt.EdgeTypes != nil {
		var chosen []int32
		for _, name := range opt.EdgeTypes {
			found := false
			for _, ty := range all {
				if t.Types[ty].Name == name {
					chosen = append(chosen, ty)
					found = true
				}
			}
			if !found {
				return nil, errs.Argument("edges", "no link type %q in the trace (link types: %s)", name, names(all))
			}
		}
		return chosen, nil
	}
	switch opt.EdgeSource {
	case EdgesAuto:
		if len(platform) > 0 {
			return platform, nil
		}
		return other, nil
	case EdgesPlatform:
		if len(platform) == 0 {
			return nil, errs.Argument("edges", "the trace has no platform link type (links between HOST, LINK and ROUTER containers); its link types: %s", names(all))
		}
		return platform, nil
	case EdgesCommunications:
		if len(other) == 0 {
			return nil, errs.Argument("edges", "the trace has no communication link type (links other than between HOST, LINK and ROUTER containers); its link types: %s", names(all))
		}
		return other, nil
	}
	return nil, errs.Argument("edges", "must be %q, %q, a list of link types or None, got %q", EdgesPlatform, EdgesCommunications, opt.EdgeSource)
}

// chooseKinds returns the container types whose containers are nodes.
func (tp *Topology) chooseKinds(opt Options, linkTypes []int32) ([]int32, error) {
	t := tp.tr
	var containerTypes []int32
	for i, ty := range t.Types {
		if ty.Kind == trace.KindContainer {
			containerTypes = append(containerTypes, int32(i))
		}
	}
	var kinds []int32
	add := func(ty int32) {
		if !slices.Contains(kinds, ty) {
			kinds = append(kinds, ty)
		}
	}
	if opt.Kinds != nil {
		for _, name := range opt.Kinds {
			found := false
			for _, ty := range containerTypes {
				if t.Types[ty].Name == name {
					add(ty)
					found = true
				}
			}
			if !found {
				return nil, errs.Argument("kinds", "no container type %q in the trace (container types: %s)", name, strings.Join(tp.kindNames(containerTypes), ", "))
			}
		}
		return kinds, nil
	}
	for _, lt := range linkTypes {
		ty := t.Types[lt]
		for _, end := range []int32{ty.Start, ty.End} {
			if end < 0 {
				continue
			}
			// Every container type of that name: SimGrid declares HOST
			// once per level of its zones.
			for _, ct := range containerTypes {
				if t.Types[ct].Name == t.Types[end].Name {
					add(ct)
				}
			}
		}
	}
	// The platform's types, unless the edges are communications: hosts
	// without a link of their own would only float around the processes.
	platform := len(linkTypes) == 0
	for _, lt := range linkTypes {
		platform = platform || tp.structural(lt)
	}
	for _, ct := range containerTypes {
		if platform && isPlatformKind(t.Types[ct].Name) {
			add(ct)
		}
	}
	if len(kinds) == 0 {
		return nil, errs.Argument("kinds", "no platform types: the trace has no HOST, LINK or ROUTER containers and no links to draw (container types: %s); name the node types with kinds=[...]",
			strings.Join(tp.kindNames(containerTypes), ", "))
	}
	return kinds, nil
}

// indexContainers finds the nodes, their kinds and the groups; it stops
// once look does.
func (tp *Topology) indexContainers(kindTypes []int32, look *trace.Looker) error {
	t := tp.tr
	n := len(t.Containers)
	tp.leafOf = make([]int32, n)
	tp.paths = make([]string, n)
	tp.byPath = make(map[string]int32, n)
	tp.isGroup = make([]bool, n)
	kindIdx := map[string]int32{}
	for c := range t.Containers {
		if err := look.Stopped(1); err != nil {
			return err
		}
		tp.leafOf[c] = -1
		tp.paths[c] = t.ContainerPath(int32(c), PathSep)
		tp.byPath[tp.paths[c]] = int32(c)
	}
	// Depth first, children in order: a stable order for the nodes.
	var walk func(c int32)
	walk = func(c int32) {
		ct := t.Containers[c].Type
		if c != 0 && slices.Contains(kindTypes, ct) {
			name := t.Types[ct].Name
			k, ok := kindIdx[name]
			if !ok {
				k = int32(len(tp.kinds))
				kindIdx[name] = k
				tp.kinds = append(tp.kinds, name)
			}
			tp.leafOf[c] = int32(len(tp.leaves))
			tp.leaves = append(tp.leaves, c)
			tp.leafKind = append(tp.leafKind, k)
		}
		for _, ch := range t.Containers[c].Children {
			walk(ch)
		}
	}
	walk(0)
	for _, c := range tp.leaves {
		if err := look.Stopped(1); err != nil {
			return err
		}
		for p := t.Containers[c].Parent; p != trace.None; p = t.Containers[p].Parent {
			if tp.leafOf[p] < 0 {
				tp.isGroup[p] = true
			}
		}
	}
	return nil
}

// chooseMetrics finds, for each kind, the variable types of its capacity
// and utilization.
func (tp *Topology) chooseMetrics(opt Options) error {
	t := tp.tr
	size, fill := opt.Size, opt.Fill
	if size == nil {
		size = DefaultSize
	}
	if fill == nil {
		fill = DefaultFill
	}
	for kind := range opt.SizeByKind {
		if !slices.Contains(tp.kinds, kind) {
			return errs.Argument("size", "no node of kind %q (kinds: %s)", kind, strings.Join(tp.kinds, ", "))
		}
	}
	for kind := range opt.FillByKind {
		if !slices.Contains(tp.kinds, kind) {
			return errs.Argument("fill", "no node of kind %q (kinds: %s)", kind, strings.Join(tp.kinds, ", "))
		}
	}
	// The variable types each kind's containers can hold, by name.
	vars := make([]map[string]bool, len(tp.kinds))
	for k := range vars {
		vars[k] = map[string]bool{}
	}
	kindOfType := map[int32]int32{}
	for i, c := range tp.leaves {
		kindOfType[t.Containers[c].Type] = tp.leafKind[i]
	}
	for _, ty := range t.Types {
		if ty.Kind != trace.KindVariable {
			continue
		}
		if k, ok := kindOfType[ty.Parent]; ok {
			vars[k][ty.Name] = true
		}
	}
	pick := func(param string, k int, byKind map[string]string, candidates []string) (string, error) {
		if name, ok := byKind[tp.kinds[k]]; ok {
			if !vars[k][name] {
				return "", errs.Argument(param, "nodes of kind %s have no variable %q (their variables: %s)", tp.kinds[k], name, listKeys(vars[k]))
			}
			return name, nil
		}
		for _, name := range candidates {
			if vars[k][name] {
				return name, nil
			}
		}
		return "", nil
	}
	tp.sizeName = make([]string, len(tp.kinds))
	tp.fillName = make([]string, len(tp.kinds))
	found := [2]bool{}
	for k := range tp.kinds {
		var err error
		if tp.sizeName[k], err = pick("size", k, opt.SizeByKind, size); err != nil {
			return err
		}
		if tp.fillName[k], err = pick("fill", k, opt.FillByKind, fill); err != nil {
			return err
		}
		found[0] = found[0] || tp.sizeName[k] != ""
		found[1] = found[1] || tp.fillName[k] != ""
	}
	// Names given by the caller must exist for some kind.
	if opt.Size != nil && !found[0] {
		return errs.Argument("size", "no node has a variable named %s (%s)", strings.Join(quoteAll(opt.Size), " or "), tp.variablesByKind(vars))
	}
	if opt.Fill != nil && !found[1] {
		return errs.Argument("fill", "no node has a variable named %s (%s)", strings.Join(quoteAll(opt.Fill), " or "), tp.variablesByKind(vars))
	}
	return nil
}

func (tp *Topology) variablesByKind(vars []map[string]bool) string {
	var parts []string
	for k, name := range tp.kinds {
		parts = append(parts, name+": "+listKeys(vars[k]))
	}
	return strings.Join(parts, "; ")
}

func listKeys(m map[string]bool) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

func quoteAll(names []string) []string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return q
}

// nodeOf returns the leaf a container belongs to: itself or its nearest
// ancestor that is a node; -1 if none.
func (tp *Topology) nodeOf(c int32) int32 {
	for ; c != trace.None; c = tp.tr.Containers[c].Parent {
		if l := tp.leafOf[c]; l >= 0 {
			return l
		}
	}
	return -1
}

// structural tells whether a link type joins platform containers (HOST,
// LINK, ROUTER): a relation of the platform, not a communication.
func (tp *Topology) structural(lt int32) bool {
	t := tp.tr
	ty := t.Types[lt]
	return ty.Start >= 0 && ty.End >= 0 && isPlatformKind(t.Types[ty.Start].Name) && isPlatformKind(t.Types[ty.End].Name)
}

// collectLinks keeps the links of the edge types between two nodes; it
// stops once look does.
func (tp *Topology) collectLinks(linkTypes []int32, look *trace.Looker) error {
	t := tp.tr
	structural := make(map[int32]bool)
	for _, lt := range linkTypes {
		ty := t.Types[lt]
		structural[lt] = tp.structural(lt)
		if n := ty.Name; !slices.Contains(tp.edgeTypes, n) {
			tp.edgeTypes = append(tp.edgeTypes, n)
		}
	}
	for _, l := range t.Links.Unkeyed() { // the keys are not needed
		if err := look.Stopped(1); err != nil {
			return err
		}
		st, ok := structural[l.Type]
		if !ok {
			continue
		}
		a, b := tp.nodeOf(l.From), tp.nodeOf(l.To)
		if a < 0 || b < 0 || a == b {
			tp.skipped++
			continue
		}
		if a > b {
			a, b = b, a
		}
		tp.links = append(tp.links, linkRec{a: a, b: b, start: l.Start, end: l.End, structural: st})
	}
	return nil
}

// SetWindow integrates the metrics over [start, end] and recounts the
// edges whose links must overlap it (communications; platform relations
// count whatever the window). Positions and collapsed groups are kept.
func (tp *Topology) SetWindow(start, end trace.Time) error {
	return tp.setWindow(start, end, &tp.look) // stops inside Change only
}

// setWindow is SetWindow stopped by look (Build's): the window, metrics
// and edges are then left half set, which only Build, returning no graph,
// may do.
func (tp *Topology) setWindow(start, end trace.Time, look *trace.Looker) error {
	t := tp.tr
	switch {
	case start > end || (start == end && t.Start != t.End):
		return errs.Argument("start", "the window [%s, %s] s is empty: start must be before end", start, end)
	case start < t.Start || end > t.End:
		return errs.Argument("start", "the window [%s, %s] s is not inside the trace, which spans [%s, %s] s", start, end, t.Start, t.End)
	}
	tp.start, tp.end = start, end
	if err := tp.integrate(look); err != nil {
		return err
	}
	pairs := map[[2]int32]int{}
	for _, l := range tp.links {
		if err := look.Stopped(1); err != nil {
			return err
		}
		if l.structural || (l.start <= end && l.end >= start) {
			pairs[[2]int32{l.a, l.b}]++
		}
	}
	tp.edges = tp.edges[:0]
	for p, n := range pairs {
		tp.edges = append(tp.edges, leafEdge{a: p[0], b: p[1], count: n})
	}
	slices.SortFunc(tp.edges, func(x, y leafEdge) int {
		return cmp.Or(cmp.Compare(x.a, y.a), cmp.Compare(x.b, y.b))
	})
	// The view goes through every node and edge once.
	if err := look.Stopped(len(tp.edges) + len(tp.leaves)); err != nil {
		return err
	}
	tp.invalidate()
	return nil
}

// integrate computes each leaf's integrals over the window: the sum over
// the pieces of its variable of value x overlap (seconds), and their time
// averages. Leaves whose kind has no such variable get NaN; those that
// have it but no piece in the window get 0. A trace that spans no time (a
// platform description) has an empty window: the averages are then the
// values at that instant (the last piece set there) and the integrals 0.
// It stops once look does.
func (tp *Topology) integrate(look *trace.Looker) error {
	t := tp.tr
	n := len(tp.leaves)
	tp.capInt = make([]float64, n)
	tp.useInt = make([]float64, n)
	tp.capMean = make([]float64, n)
	tp.useMean = make([]float64, n)
	// The variable type of each (container type, name).
	typeOf := map[int32]map[string]int32{}
	for i, ty := range t.Types {
		if ty.Kind == trace.KindVariable {
			m := typeOf[ty.Parent]
			if m == nil {
				m = map[string]int32{}
				typeOf[ty.Parent] = m
			}
			m[ty.Name] = int32(i)
		}
	}
	capType := make([]int32, n)
	useType := make([]int32, n)
	for i, c := range tp.leaves {
		k := tp.leafKind[i]
		ct := t.Containers[c].Type
		capType[i], useType[i] = -1, -1
		if name := tp.sizeName[k]; name != "" {
			if ty, ok := typeOf[ct][name]; ok {
				capType[i] = ty
			}
		}
		if name := tp.fillName[k]; name != "" {
			if ty, ok := typeOf[ct][name]; ok {
				useType[i] = ty
			}
		}
		if capType[i] < 0 {
			tp.capInt[i], tp.capMean[i] = math.NaN(), math.NaN()
		}
		if useType[i] < 0 {
			tp.useInt[i], tp.useMean[i] = math.NaN(), math.NaN()
		}
	}
	w := (tp.end - tp.start).Seconds()
	for _, v := range t.Variables.All() {
		if err := look.Stopped(1); err != nil {
			return err
		}
		l := tp.leafOf[v.Container]
		if l < 0 || (v.Type != capType[l] && v.Type != useType[l]) {
			continue
		}
		integral, mean := tp.capInt, tp.capMean
		if v.Type == useType[l] {
			integral, mean = tp.useInt, tp.useMean
		}
		if w == 0 {
			if v.Start <= tp.start && v.End >= tp.end {
				mean[l] = v.Value
			}
			continue
		}
		lo, hi := max(v.Start, tp.start), min(v.End, tp.end)
		if hi > lo {
			integral[l] += v.Value * (hi - lo).Seconds()
		}
	}
	if w > 0 {
		for i := range n {
			tp.capMean[i] = tp.capInt[i] / w
			tp.useMean[i] = tp.useInt[i] / w
		}
	}
	return nil
}

// Trace returns the trace the graph comes from.
func (tp *Topology) Trace() *trace.Trace { return tp.tr }

// Window returns the time window.
func (tp *Topology) Window() (start, end trace.Time) { return tp.start, tp.end }

// Kinds returns the kinds of node, and for each the names of its capacity
// and utilization variables ("" where it has none).
func (tp *Topology) Kinds() (kinds, size, fill []string) {
	return tp.kinds, tp.sizeName, tp.fillName
}

// EdgeTypes returns the names of the link types the edges come from.
func (tp *Topology) EdgeTypes() []string { return tp.edgeTypes }

// Links returns the number of trace links kept as edges (in any window)
// and the number skipped because an end was not a node or both ends were
// in the same node.
func (tp *Topology) Links() (kept, skipped int) { return len(tp.links), tp.skipped }

// Leaves returns the number of nodes of the full graph.
func (tp *Topology) Leaves() int { return len(tp.leaves) }
