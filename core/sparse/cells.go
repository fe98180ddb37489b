// Package sparse stores the values of a microscopic model, cells x
// categories (a cell is a resource over one time slice), by their non-zero
// entries.
//
// A cell of a real profile holds a handful of states out of thousands: an
// Nsight Systems export of a two-GPU training step has 18,529 states over
// 24 resources and 100 slices, 44 million values of which 21,640 are not
// zero. Cells keeps those only, cell after cell, so that memory and the
// work of the engines that read them follow the non-zero values, not
// cells x categories.
package sparse

import (
	"fmt"
	"math"
)

// Cells holds the non-zero values of an array of cells x categories: cell
// c's entries are at Start[c] to Start[c+1] (exclusive) of State and Value,
// their categories increasing.
type Cells struct {
	// Start has one more element than there are cells: Start[0] is 0, and
	// Start[len(Start)-1] the number of entries.
	Start []int64
	State []int32
	Value []float64
}

// Len returns the number of cells.
func (c *Cells) Len() int { return len(c.Start) - 1 }

// NonZero returns the number of entries.
func (c *Cells) NonZero() int { return len(c.Value) }

// Cell returns the categories and values of cell i's entries (shared with
// c: not to be modified).
func (c *Cells) Cell(i int) (states []int32, values []float64) {
	lo, hi := c.Start[i], c.Start[i+1]
	return c.State[lo:hi:hi], c.Value[lo:hi:hi]
}

// Range returns the categories and values of the entries of cells lo to
// hi-1, in order (shared with c).
func (c *Cells) Range(lo, hi int) (states []int32, values []float64) {
	a, b := c.Start[lo], c.Start[hi]
	return c.State[a:b:b], c.Value[a:b:b]
}

// At returns the value of category x in cell i (0 when it has no entry).
func (c *Cells) At(i, x int) float64 {
	states, values := c.Cell(i)
	lo, hi := 0, len(states)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if int(states[m]) < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(states) && int(states[lo]) == x {
		return values[lo]
	}
	return 0
}

// Row sets dst (one value per category) to the values of cell i.
func (c *Cells) Row(i int, dst []float64) {
	clear(dst)
	states, values := c.Cell(i)
	for k, x := range states {
		dst[x] = values[k]
	}
}

// Dense returns the values as a dense array, cell after cell, categories
// values per cell.
func (c *Cells) Dense(categories int) []float64 {
	out := make([]float64, c.Len()*categories)
	for i := range c.Len() {
		c.Row(i, out[i*categories:(i+1)*categories])
	}
	return out
}

// FromDense returns the non-zero values of a dense array (cell after cell,
// categories values per cell). Negative zeros are zeros.
func FromDense(values []float64, categories int) *Cells {
	cells := 0
	if categories > 0 {
		cells = len(values) / categories
	}
	nz := 0
	for _, v := range values {
		if v != 0 {
			nz++
		}
	}
	c := &Cells{Start: make([]int64, cells+1), State: make([]int32, 0, nz), Value: make([]float64, 0, nz)}
	for i := range cells {
		for x, v := range values[i*categories : (i+1)*categories] {
			if v != 0 {
				c.State = append(c.State, int32(x))
				c.Value = append(c.Value, v)
			}
		}
		c.Start[i+1] = int64(len(c.Value))
	}
	return c
}

// Window returns the entries of cells [lo+k*stride, lo+k*stride+n) for k in
// 0..groups-1, as cells of their own: the slices first..first+n-1 of every
// resource of a model with stride slices (lo = first).
func (c *Cells) Window(lo, n, stride, groups int) *Cells {
	out := &Cells{Start: make([]int64, 1, groups*n+1)}
	for g := range groups {
		from := g*stride + lo
		for i := from; i < from+n; i++ {
			states, values := c.Cell(i)
			out.State = append(out.State, states...)
			out.Value = append(out.Value, values...)
			out.Start = append(out.Start, int64(len(out.Value)))
		}
	}
	return out
}

// Bytes returns the memory the entries and their offsets take.
func (c *Cells) Bytes() int64 {
	return int64(len(c.Start))*8 + int64(len(c.State))*4 + int64(len(c.Value))*8
}

// Pays reports whether storing cells x categories values of which nonZero
// are not zero as Cells takes at most half the memory of a dense array:
// with few categories, most of them used, the dense array is smaller and
// the engines' dense kernels faster.
func Pays(nonZero, cells, categories int) bool {
	sparse := 12*float64(nonZero) + 8*float64(cells+1)
	dense := 8 * float64(cells) * float64(categories)
	return 2*sparse <= dense
}

// Check verifies that c is a well-formed set of entries for cells cells of
// categories categories each: offsets that start at 0, never decrease and
// end at the number of entries, categories in range and increasing within
// a cell. It says which cell is wrong; values are not checked.
func (c *Cells) Check(cells, categories int) error {
	if len(c.Start) != cells+1 {
		return fmt.Errorf("%d offsets for %d cells (want %d)", len(c.Start), cells, cells+1)
	}
	if len(c.State) != len(c.Value) {
		return fmt.Errorf("%d categories for %d values", len(c.State), len(c.Value))
	}
	if c.Start[0] != 0 || c.Start[cells] != int64(len(c.Value)) {
		return fmt.Errorf("offsets run from %d to %d, not from 0 to the %d values", c.Start[0], c.Start[cells], len(c.Value))
	}
	for i := range cells {
		lo, hi := c.Start[i], c.Start[i+1]
		if hi < lo {
			return fmt.Errorf("cell %d: its entries end (%d) before they start (%d)", i, hi, lo)
		}
		if hi > int64(len(c.Value)) { // a later offset comes back down: this one is past the entries
			return fmt.Errorf("cell %d: its entries end (%d) past the %d values", i, hi, len(c.Value))
		}
		prev := int32(-1)
		for _, x := range c.State[lo:hi] {
			if x <= prev || int(x) >= categories {
				return fmt.Errorf("cell %d: category %d is out of order or not in [0, %d)", i, x, categories)
			}
			prev = x
		}
	}
	return nil
}

// FirstInvalid returns the index of the first entry whose value is not a
// finite non-negative number, or -1.
func (c *Cells) FirstInvalid() int {
	for i, v := range c.Value {
		if !(v >= 0) || math.IsInf(v, 0) { // also catches NaN
			return i
		}
	}
	return -1
}

// CellOf returns the cell holding entry k.
func (c *Cells) CellOf(k int) int {
	lo, hi := 0, c.Len()
	for lo < hi { // the first cell whose end is past k
		m := int(uint(lo+hi) >> 1)
		if c.Start[m+1] <= int64(k) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// New returns empty cells to be filled by Add and Close, with room for
// cells cells and entries entries.
func New(cells, entries int) *Cells {
	return &Cells{Start: make([]int64, 1, cells+1), State: make([]int32, 0, entries), Value: make([]float64, 0, entries)}
}

// Add appends an entry to the cell being filled: its categories must come
// in increasing order.
func (c *Cells) Add(x int32, v float64) {
	c.State = append(c.State, x)
	c.Value = append(c.Value, v)
}

// Close ends the cell being filled; the next Add starts the next cell.
func (c *Cells) Close() { c.Start = append(c.Start, int64(len(c.Value))) }
