package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// union is the union of the runs' hierarchies, as it is being built.
type union struct {
	names    []string
	children [][]int
	index    map[unionKey]int
	// leafOf[r][l]: builder node of run r's leaf l.
	leafOf [][]int
	// hasLeaf[node]: some run has the node as a leaf.
	hasLeaf []bool
}

type unionKey struct {
	parent int
	key    string
}

func newUnion(runs int) *union {
	return &union{names: []string{"root"}, children: [][]int{nil}, index: map[unionKey]int{},
		leafOf: make([][]int, runs), hasLeaf: []bool{false}}
}

// node returns the builder node of child key of parent, made if new.
func (u *union) node(parent int, key, name string) int {
	k := unionKey{parent, key}
	if id, ok := u.index[k]; ok {
		return id
	}
	id := len(u.names)
	u.names = append(u.names, name)
	u.children = append(u.children, nil)
	u.hasLeaf = append(u.hasLeaf, false)
	u.children[parent] = append(u.children[parent], id)
	u.index[k] = id
	return id
}

// add merges run r's hierarchy. It returns the nodes matched by name
// pattern (ByName), each as "name as union name", but for those under a
// node so matched.
func (u *union) add(r int, t *hier.Tree, match Match) []string {
	u.leafOf[r] = make([]int, len(t.Leaves))
	var renamed []string
	// under: a node above was matched by pattern (its children's names
	// often repeat its id: a Go goroutine's "G23 f [Goroutine state]");
	// only the topmost match is listed.
	var walk func(n int32, id int, under bool)
	walk = func(n int32, id int, under bool) {
		if t.IsLeaf(n) {
			u.leafOf[r][t.LeafLo[n]] = id
			u.hasLeaf[id] = true
			return
		}
		kids := t.Children[n]
		names := make([]string, len(kids))
		for i, c := range kids {
			names[i] = t.Names[c]
		}
		var paired []int
		var goKeys []string
		if match == ByName {
			// A reader may key them (Go goroutines: by function).
			if goKeys = ingest.KeyResources(t.Names[n], names); goKeys == nil {
				paired = u.matchByName(id, names)
			}
		}
		for i, c := range kids {
			key := names[i]
			if match == ByPosition {
				key = strconv.Itoa(i)
			}
			if goKeys != nil && goKeys[i] != "" {
				g := u.node(id, goKeys[i], names[i])
				renamedHere := u.names[g] != names[i]
				if renamedHere && !under {
					renamed = append(renamed, names[i]+" as "+u.names[g])
				}
				walk(c, g, under || renamedHere)
				continue
			}
			if paired != nil && paired[i] >= 0 {
				if !under {
					renamed = append(renamed, names[i]+" as "+u.names[paired[i]])
				}
				walk(c, paired[i], true)
				continue
			}
			walk(c, u.node(id, key, names[i]), under)
		}
	}
	if t.IsLeaf(0) { // a model of one resource: the root is the leaf
		walk(0, u.node(0, "0", t.Names[0]), false)
		return nil
	}
	walk(0, 0, false)
	return renamed
}

// matchByName pairs the children of a run's node (names) with the
// union's children of node id that differ from them only by the numbers
// in their names: a process id, a thread id, the GPU a rank drives
// ("python3.8 (GPU 3)" in rank 3's trace, "python3.8 (GPU 1)" in rank
// 1's). A name found as it is matches itself. The others are paired in
// order with the union's children of their pattern (the name with every
// number written #) that no name of this run matched, but only where no
// name of that pattern matched itself: when some do ("MPI Rank 3" in
// both runs), the numbers name the resources (ranks, streams) and a
// number one run lacks is a resource it lacks. paired[i] is the union
// node of names[i], or -1 for one to match by its name (found or new).
func (u *union) matchByName(id int, names []string) []int {
	paired := make([]int, len(names))
	claimed := map[int]bool{}
	exact := map[string]bool{} // patterns with a name matched as it is
	for i, name := range names {
		paired[i] = -1
		if c, ok := u.index[unionKey{id, name}]; ok {
			claimed[c] = true
			exact[namePattern(name)] = true
		}
	}
	var free map[string][]int // the union's unclaimed children by pattern
	for i, name := range names {
		if _, ok := u.index[unionKey{id, name}]; ok {
			continue
		}
		pat := namePattern(name)
		if pat == name || exact[pat] {
			continue
		}
		if free == nil {
			free = map[string][]int{}
			for _, c := range u.children[id] {
				if !claimed[c] {
					p := namePattern(u.names[c])
					free[p] = append(free[p], c)
				}
			}
		}
		if list := free[pat]; len(list) > 0 {
			paired[i], free[pat] = list[0], list[1:]
		}
	}
	return paired
}

// namePattern writes every number of a name (a run of digits, with its
// sign, or a hexadecimal 0x...) as "#": the names of one resource in two
// runs whose ids differ have one pattern.
func namePattern(name string) string {
	var b strings.Builder
	digits := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '0' && i+2 < len(name) && (name[i+1] == 'x' || name[i+1] == 'X') && isHex(name[i+2]):
			i += 2
			for i+1 < len(name) && isHex(name[i+1]) {
				i++
			}
			if !digits {
				b.WriteByte('#')
			}
			digits = true
		case c >= '0' && c <= '9':
			if !digits {
				b.WriteByte('#')
			}
			digits = true
		case c == '-' && i+1 < len(name) && name[i+1] >= '0' && name[i+1] <= '9' && !digits:
			// a sign: part of the number that follows
		default:
			b.WriteByte(c)
			digits = false
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// build makes the tree. A node that is a leaf in some run and has
// children in others gets a leaf of its own, "name (self)", for the runs
// where it is a leaf. It returns the tree and, by run, the tree leaf of
// each of the run's leaves.
func (u *union) build() (*hier.Tree, [][]int32) {
	self := map[int]int{}
	for id := 0; id < len(u.names); id++ {
		if u.hasLeaf[id] && len(u.children[id]) > 0 {
			self[id] = u.node(id, "\x00self", u.names[id]+" (self)")
		}
	}
	b := hier.NewBuilder("root")
	ids := make([]int, len(u.names))
	var walk func(id, bid int)
	walk = func(id, bid int) {
		ids[id] = bid
		for _, c := range u.children[id] {
			walk(c, b.Add(bid, u.names[c]))
		}
	}
	walk(0, 0)
	tree, newID := b.Build()
	leaves := make([][]int32, len(u.leafOf))
	for r, list := range u.leafOf {
		leaves[r] = make([]int32, len(list))
		for l, id := range list {
			if s, ok := self[id]; ok {
				id = s
			}
			leaves[r][l] = tree.LeafLo[newID[ids[id]]]
		}
	}
	return tree, leaves
}

// unionStates merges the runs' categories by name, in the order they are
// first seen, with the first colour given.
func unionStates(models []*micro.Model) (names, colors []string, index [][]int) {
	pos := map[string]int{}
	index = make([][]int, len(models))
	for r, m := range models {
		index[r] = make([]int, len(m.States))
		for x, s := range m.States {
			i, ok := pos[s]
			if !ok {
				i = len(names)
				pos[s] = i
				names = append(names, s)
				colors = append(colors, "")
			}
			if colors[i] == "" && x < len(m.Colors) {
				colors[i] = m.Colors[x]
			}
			index[r][x] = i
		}
	}
	return names, colors, index
}

// absentShare returns, for each slice of run r's window, the share of the
// slice outside the run's extent (Start and Absolute alignments).
func (b *builder) absentShare(r int) []float64 {
	m := b.models[r]
	out := make([]float64, m.Slices)
	method := b.opt.Align.Method
	if method != Start && method != Absolute {
		return out
	}
	lo, hi := b.runs[r].Start, b.runs[r].End
	for k := range out {
		a, e := m.SliceStart(k), m.SliceStart(k+1)
		if e <= a {
			continue
		}
		in := max(0, min(e, hi)-max(a, lo))
		out[k] = 1 - float64(in)/float64(e-a)
	}
	return out
}

// set makes the comparison's model from the runs' models, releasing each
// once it is copied.
func (b *builder) set() (*Set, error) {
	R := len(b.models)
	u := newUnion(R)
	for r, m := range b.models {
		if renamed := u.add(r, m.Tree, b.opt.Match); len(renamed) > 0 {
			b.runs[r].Matched = len(renamed)
			b.runs[r].Notes = append(b.runs[r].Notes, matchedNote(renamed))
		}
	}
	resources, leafOf := u.build()
	names, colors, stateOf := unionStates(b.models)
	L, T := len(resources.Leaves), b.opt.Slices
	present := make([][]bool, R)
	absentShares := make([][]float64, R)
	anyAbsent, anyIdle := false, false
	for r, m := range b.models {
		present[r] = make([]bool, L)
		for _, l := range leafOf[r] {
			present[r][l] = true
		}
		b.runs[r].Missing = L - countTrue(present[r])
		if b.runs[r].Missing > 0 {
			b.runs[r].Notes = append(b.runs[r].Notes, missingNote(resources, present[r], L))
		}
		absentShares[r] = b.absentShare(r)
		if b.runs[r].Missing > 0 {
			anyAbsent = true
		}
		for _, a := range absentShares[r] {
			if a > 0 {
				anyAbsent = true
			}
		}
		if !anyIdle {
			anyIdle = hasIdle(m, absentShares[r])
		}
	}
	idle, absent := -1, -1
	if anyIdle {
		idle = len(names)
		names = append(names, Idle)
		colors = append(colors, "1 1 1")
	}
	if anyAbsent {
		absent = len(names)
		names = append(names, Absent)
		colors = append(colors, "0.55 0.55 0.55")
	}
	X := len(names)
	need := float64(R) * float64(L) * float64(T) * float64(X) * 8
	if err := budget.Check("slices", "a comparison of "+strconv.Itoa(R)+" runs x "+strconv.Itoa(L)+" resources x "+
		strconv.Itoa(T)+" slices x "+strconv.Itoa(X)+" states", int64(min(need, math.MaxInt64/2)), b.opt.Model.MemoryBudget,
		"use fewer slices, fewer runs, or fewer states (state_types=, key=\"type\")"); err != nil {
		return nil, err
	}
	s := &Set{Runs: b.runs, Reference: b.opt.Reference, Resources: resources, States: names, Colors: colors,
		Slices: T, Align: b.opt.Align, AlignReason: b.reason, Placement: b.opt.Placement, Present: present, idle: idle, absent: absent}
	s.layout()
	s.Values = make([]float64, R*L*T*X)
	for r, m := range b.models {
		// The read's cancel stops the union too, a run at a time.
		if err := trace.Stopped(b.ro.Cancel); err != nil {
			return nil, err
		}
		s.scatter(r, m, leafOf[r], stateOf[r], absentShares[r])
		b.models[r] = nil // copied: let it go
	}
	s.axis(b)
	return s, nil
}

func countTrue(v []bool) int {
	n := 0
	for _, b := range v {
		if b {
			n++
		}
	}
	return n
}

// hasIdle tells whether some cell of m (with the absent shares of its
// slices) sums to less than 1.
func hasIdle(m *micro.Model, absent []float64) bool {
	X := len(m.States)
	for l := 0; l < m.NumLeaves(); l++ {
		for t := 0; t < m.Slices; t++ {
			sum := absent[t]
			for _, v := range m.Values[(l*m.Slices+t)*X : (l*m.Slices+t+1)*X] {
				sum += v
			}
			if sum < 1-1e-12 {
				return true
			}
		}
	}
	return false
}

// scatter copies run r's model into the set, completing its cells.
func (s *Set) scatter(r int, m *micro.Model, leafOf []int32, stateOf []int, absent []float64) {
	X := len(s.States)
	for l := range s.Resources.Leaves {
		if s.Present[r][l] {
			continue
		}
		for t := 0; t < s.Slices; t++ {
			s.Cell(r, l, t)[s.absent] = 1
		}
	}
	mx := len(m.States)
	for ml, l := range leafOf {
		for t := 0; t < s.Slices; t++ {
			cell := s.Cell(r, int(l), t)
			src := m.Values[(ml*m.Slices+t)*mx : (ml*m.Slices+t+1)*mx]
			sum := absent[t]
			for x, v := range src {
				cell[stateOf[x]] += v
				sum += v
			}
			if s.absent >= 0 {
				cell[s.absent] += absent[t]
			}
			if s.idle >= 0 {
				cell[s.idle] = math.Max(0, 1-sum)
			}
			_ = X
		}
	}
}

// axis sets the common time axis (see Set.Start).
func (s *Set) axis(b *builder) {
	switch b.opt.Align.Method {
	case Stretch:
		ref := s.Runs[s.Reference]
		s.Start, s.End = ref.WindowStart, ref.WindowEnd
	default:
		s.Start, s.End = b.axis[0], b.axis[1]
	}
	if s.End <= s.Start {
		s.End = s.Start + trace.Time(s.Slices)
	}
}

// layout makes the model's hierarchy with the run level.
func (s *Set) layout() {
	R := len(s.Runs)
	res := s.Resources
	b := hier.NewBuilder("root")
	var resOf, runOf []int32
	resOf = append(resOf, 0)
	runOf = append(runOf, -1)
	add := func(parent int, name string, node, run int32) int {
		resOf = append(resOf, node)
		runOf = append(runOf, run)
		return b.Add(parent, name)
	}
	var copyTree func(n int32, id int, run int32)
	copyTree = func(n int32, id int, run int32) {
		if res.IsLeaf(n) && s.Placement == UnderResource {
			for r := 0; r < R; r++ {
				add(id, s.Runs[r].Name, n, int32(r))
			}
			return
		}
		for _, c := range res.Children[n] {
			copyTree(c, add(id, res.Names[c], c, run), run)
		}
	}
	if s.Placement == AtTop {
		for r := 0; r < R; r++ {
			id := add(0, s.Runs[r].Name, 0, int32(r))
			if res.IsLeaf(0) {
				continue
			}
			copyTree(0, id, int32(r))
		}
	} else {
		copyTree(0, 0, -1)
	}
	tree, ids := b.Build()
	s.Tree = tree
	s.NodeResource = make([]int32, tree.Len())
	s.NodeRun = make([]int32, tree.Len())
	for old, id := range ids {
		s.NodeResource[id], s.NodeRun[id] = resOf[old], runOf[old]
	}
}

// matchedNote tells which resources of a run were matched by name
// pattern (ByName), the first few by name.
func matchedNote(renamed []string) string {
	const shown = 3
	var b strings.Builder
	nodes := "nodes"
	if len(renamed) == 1 {
		nodes = "node"
	}
	// Go goroutines are paired by function (ingest.KeyResources): their ids
	// are numbers aside too.
	fmt.Fprintf(&b, "%d %s matched to another run's by the pattern of their names, numbers aside: ", len(renamed), nodes)
	b.WriteString(strings.Join(renamed[:min(shown, len(renamed))], ", "))
	if len(renamed) > shown {
		fmt.Fprintf(&b, ", and %d more", len(renamed)-shown)
	}
	b.WriteString(` (match="path" keeps them apart)`)
	return b.String()
}

// missingNote says which resources of the union a run lacks, and what
// the comparison makes of them: runs of a scaling study (4 ranks against
// 8) share their first ranks, matched by path, and the larger run's
// other ranks are absent from the smaller one. Their cells are Absent,
// which the divergence counts (presence_divergence, 1 bit where only one
// of two runs has the resource): without this note the first rows of
// the table would read as a difference of behaviour.
func missingNote(resources *hier.Tree, present []bool, leaves int) string {
	const shown = 3
	var names []string
	missing := 0
	for l, p := range present {
		if !p {
			missing++
			if len(names) < shown {
				names = append(names, resources.Path(resources.Leaves[l], "/"))
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "lacks %d of the %d resources of the runs: %s", missing, leaves, strings.Join(names, ", "))
	if missing > shown {
		fmt.Fprintf(&b, ", and %d more", missing-shown)
	}
	b.WriteString(`; their cells are (absent), a divergence of presence (presence_divergence); rank="present" ranks first what differs where every run has the resource`)
	return b.String()
}
