package kaleido

import (
	"fmt"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Attributes are the optional columns of a tree table, one entry per row.
type Attributes struct {
	Procedure  []int32 // index into Procedures, or None; nil when unknown
	Procedures []string
	PE         []int32 // index into PEs, or None; nil when unknown
	PEs        []string
	Start      []trace.Time // nil when the table has no times
	// OrderByStart orders siblings by start time, ties in row order;
	// otherwise siblings keep the row order. It needs Start.
	OrderByStart bool
}

// FromIntTable builds a tree from rows (ids[r], parents[r]): hasParent[r]
// is false for the root, which must be the only such row. Errors are
// *errs.ArgumentError naming the first offending row (rows count from 0):
// duplicate ids, unknown parents, no root or several, cycles of parents.
func FromIntTable(ids, parents []int64, hasParent []bool, attr Attributes) (*Tree, error) {
	t, err := fromTable(ids, parents, hasParent, attr)
	if err != nil {
		return nil, err
	}
	t.IntKeys = ids
	return t, nil
}

// FromStringTable is FromIntTable for string ids.
func FromStringTable(ids, parents []string, hasParent []bool, attr Attributes) (*Tree, error) {
	t, err := fromTable(ids, parents, hasParent, attr)
	if err != nil {
		return nil, err
	}
	t.StrKeys = ids
	return t, nil
}

func fromTable[K comparable](ids, parents []K, hasParent []bool, attr Attributes) (*Tree, error) {
	n := len(ids)
	if n == 0 {
		return nil, errs.Argument("id", "the table has no rows")
	}
	if err := checkLengths(n, len(parents), len(hasParent), attr); err != nil {
		return nil, err
	}
	var rowOf func(K) (int32, bool)
	var err error
	if ints, ok := any(ids).([]int64); ok {
		var byInt func(int64) (int32, bool)
		byInt, err = intRows(ints)
		rowOf = any(byInt).(func(K) (int32, bool))
	} else {
		rowOf, err = mapRows(ids)
	}
	if err != nil {
		return nil, err
	}
	parent := make([]int32, n)
	var roots []int32
	for r := range n {
		if !hasParent[r] {
			parent[r] = None
			roots = append(roots, int32(r))
			continue
		}
		p, ok := rowOf(parents[r])
		if !ok {
			return nil, errs.Argument("parent", "row %d (id %v): parent %v is not the id of any row", r, ids[r], parents[r])
		}
		parent[r] = p
	}
	key := func(r int32) string { return fmt.Sprint(ids[r]) }
	switch {
	case len(roots) == 0:
		return nil, errs.Argument("parent", "no root (a row without parent): %s", describeCycle(parent, 0, key))
	case len(roots) > 1:
		return nil, errs.Argument("parent", "%d roots (rows without parent), a tree has one: %s",
			len(roots), listRows(roots, key))
	}
	var compare func(a, b int32) int
	if attr.OrderByStart && attr.Start != nil {
		compare = byStart(attr.Start)
	}
	s, unreached, _ := preorder(parent, roots[0], compare, nil) // a nil look never stops
	if unreached != nil {
		return nil, errs.Argument("parent", "%s", describeCycle(parent, unreached[0], key))
	}
	return &Tree{
		Parent: s.parent, Depth: s.depth, End: s.end, Height: s.height, Row: s.row,
		Procedure: permute(attr.Procedure, s.row), Procedures: attr.Procedures,
		PE: permute(attr.PE, s.row), PEs: attr.PEs,
		Start: permute(attr.Start, s.row),
	}, nil
}

// intRows maps integer ids to rows. Ids that fill a range at most four
// times the number of rows (0..n-1, 1..n, sparse numberings) are looked
// up in a slice, several times faster than a map on a million rows.
func intRows(ids []int64) (func(int64) (int32, bool), error) {
	lo, hi := ids[0], ids[0]
	for _, id := range ids {
		lo, hi = min(lo, id), max(hi, id)
	}
	if span := uint64(hi - lo); hi-lo < 0 || span >= 4*uint64(len(ids)) {
		return mapRows(ids)
	}
	rows := make([]int32, hi-lo+1) // row + 1, 0 for none
	for r, id := range ids {
		if first := rows[id-lo] - 1; first >= 0 {
			return nil, duplicate(r, id, first)
		}
		rows[id-lo] = int32(r) + 1
	}
	return func(id int64) (int32, bool) {
		if id < lo || id > hi || rows[id-lo] == 0 {
			return 0, false
		}
		return rows[id-lo] - 1, true
	}, nil
}

// mapRows maps any ids to rows.
func mapRows[K comparable](ids []K) (func(K) (int32, bool), error) {
	rowOf := make(map[K]int32, len(ids))
	for r, id := range ids {
		if first, ok := rowOf[id]; ok {
			return nil, duplicate(r, id, first)
		}
		rowOf[id] = int32(r)
	}
	return func(k K) (int32, bool) { r, ok := rowOf[k]; return r, ok }, nil
}

func duplicate(r int, id any, first int32) error {
	return errs.Argument("id", "row %d: id %v is already the id of row %d", r, id, first)
}

func checkLengths(n, parents, hasParent int, attr Attributes) error {
	for _, c := range []struct {
		name string
		len  int
		set  bool
	}{
		{"parent", parents, true}, {"parent", hasParent, true},
		{"procedure", len(attr.Procedure), attr.Procedure != nil},
		{"pe", len(attr.PE), attr.PE != nil},
		{"start", len(attr.Start), attr.Start != nil},
	} {
		if c.set && c.len != n {
			return errs.Argument(c.name, "%d values for %d rows", c.len, n)
		}
	}
	for r, x := range attr.Procedure {
		if x < None || int(x) >= len(attr.Procedures) {
			return errs.Argument("procedure", "row %d: procedure index %d out of range", r, x)
		}
	}
	for r, x := range attr.PE {
		if x < None || int(x) >= len(attr.PEs) {
			return errs.Argument("pe", "row %d: PE index %d out of range", r, x)
		}
	}
	return nil
}

// describeCycle follows parents from row r, which does not lead to the
// root, until a row repeats, and describes the cycle found.
func describeCycle(parent []int32, r int32, key func(int32) string) string {
	pos := map[int32]int{}
	var path []int32
	for {
		if _, ok := pos[r]; ok || r == None {
			break
		}
		pos[r] = len(path)
		path = append(path, r)
		r = parent[r]
	}
	if r == None { // cannot happen for a row that does not reach the root
		return fmt.Sprintf("row %d does not lead to the root", path[0])
	}
	cycle := path[pos[r]:]
	first := cycle[0]
	for _, c := range cycle {
		first = min(first, c)
	}
	// Start the cycle at its first row, so the message is the same from
	// wherever it was entered.
	i := pos[first] - pos[r]
	cycle = append(cycle[i:], cycle[:i]...)
	rows := make([]string, len(cycle))
	chain := make([]string, len(cycle)+1)
	for j, c := range cycle {
		rows[j] = fmt.Sprint(c)
		chain[j] = key(c)
	}
	chain[len(cycle)] = key(cycle[0])
	if len(cycle) > 8 {
		rows = append(rows[:8], "...")
		chain = append(chain[:8], "...", key(cycle[0]))
	}
	return fmt.Sprintf("row %d (id %s) is on a cycle of parents: rows %s; following parents, ids %s",
		first, key(first), strings.Join(rows, ", "), strings.Join(chain, " -> "))
}

// listRows names up to five rows.
func listRows(rows []int32, key func(int32) string) string {
	var parts []string
	for i, r := range rows {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(rows)-5))
			break
		}
		parts = append(parts, fmt.Sprintf("row %d (id %s)", r, key(r)))
	}
	return strings.Join(parts, ", ")
}
