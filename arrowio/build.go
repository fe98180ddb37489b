// Package arrowio converts Macroscope's results to Apache Arrow record
// batches, the one representation every front end shares: Python receives
// them through the Arrow C stream interface without a copy, and files are
// written from them as Parquet, Feather or CSV.
//
// Every function takes the allocator the arrays live in. Arrays crossing to
// another runtime through the C data interface must not live in Go memory,
// so the Python bridge passes an allocator of memory outside the Go heap
// (arrowio/cmem).
package arrowio

import (
	"maps"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// columns assembles a record batch column by column.
type columns struct {
	mem    memory.Allocator
	fields []arrow.Field
	arrays []arrow.Array
	rows   int
	// cancel, looked at before each column (stopped), stops the
	// conversion: the columns left are not built and finish gives
	// nothing. err is trace.ErrComputationCanceled once seen closed.
	cancel <-chan struct{}
	err    error
}

// stopped reports whether c's conversion was canceled, looking at its
// channel: a column is a pass over the rows, the work between two looks.
func (c *columns) stopped() bool {
	if c.err == nil {
		c.err = trace.Stopped(c.cancel)
	}
	return c.err != nil
}

// lookAt reports whether cancel is closed, looking at row 0 and every
// trace.StopEvery rows after: a loop over a table's rows stops there.
func lookAt(row int, cancel <-chan struct{}) bool {
	return row%trace.StopEvery == 0 && trace.Stopped(cancel) != nil
}

func newColumns(mem memory.Allocator, rows int) *columns {
	return &columns{mem: mem, rows: rows}
}

func (c *columns) add(name string, a arrow.Array) {
	// A column with nulls must be declared nullable: Parquet writes it as
	// a required column otherwise, which no reader can read back.
	c.fields = append(c.fields, arrow.Field{Name: name, Type: a.DataType(), Nullable: a.NullN() > 0})
	c.arrays = append(c.arrays, a)
}

func (c *columns) float64s(name string, v []float64) {
	if c.stopped() {
		return
	}
	b := array.NewFloat64Builder(c.mem)
	defer b.Release()
	b.AppendValues(v, nil)
	c.add(name, b.NewArray())
}

func (c *columns) int64s(name string, v []int64) {
	if c.stopped() {
		return
	}
	b := array.NewInt64Builder(c.mem)
	defer b.Release()
	b.AppendValues(v, nil)
	c.add(name, b.NewArray())
}

func (c *columns) int32s(name string, v []int32) {
	if c.stopped() {
		return
	}
	b := array.NewInt32Builder(c.mem)
	defer b.Release()
	b.AppendValues(v, nil)
	c.add(name, b.NewArray())
}

func (c *columns) bools(name string, v []bool) {
	if c.stopped() {
		return
	}
	b := array.NewBooleanBuilder(c.mem)
	defer b.Release()
	b.AppendValues(v, nil)
	c.add(name, b.NewArray())
}

func (c *columns) strings(name string, v []string) {
	if c.stopped() {
		return
	}
	b := array.NewStringBuilder(c.mem)
	defer b.Release()
	b.AppendValues(v, nil)
	c.add(name, b.NewArray())
}

// categories adds a dictionary-encoded string column: codes index into
// labels. pandas receives it as a Categorical, which keeps repeated
// labels (a resource path on a million rows) from costing a string each.
// Equal labels are merged (pandas requires distinct categories).
func (c *columns) categories(name string, labels []string, codes []int32) {
	c.dictionary(name, labels, codes, nil)
}

// dictionary adds a dictionary-encoded string column of distinct labels;
// valid marks the rows that are not null (nil: every row).
func (c *columns) dictionary(name string, labels []string, codes []int32, valid []bool) {
	if c.stopped() {
		return
	}
	w := c.codeColumn(name, labels, valid)
	for i, k := range codes {
		if valid == nil || valid[i] {
			w.set(i, k)
		}
	}
}

// fixedWidth adds a column of c.rows fixed-width values and returns their
// bytes, to be filled in place. They live in the columns' allocator (C
// memory for the Python bridge), so a large table is written once, where
// its consumer will read it, with no Go-heap copy built first. valid marks
// the rows that are not null (nil: every row).
func (c *columns) fixedWidth(name string, typ arrow.FixedWidthDataType, valid []bool) []byte {
	buf := memory.NewResizableBuffer(c.mem)
	defer buf.Release()
	buf.Resize(c.rows * typ.BitWidth() / 8)
	var bitmap *memory.Buffer
	nulls := 0
	if valid != nil {
		bitmap = memory.NewResizableBuffer(c.mem)
		defer bitmap.Release()
		bitmap.Resize(int(bitutil.BytesForBits(int64(c.rows))))
		bits := bitmap.Bytes()
		clear(bits)
		for i, ok := range valid {
			if ok {
				bitutil.SetBit(bits, i)
			} else {
				nulls++
			}
		}
		if nulls == 0 {
			bitmap = nil
		}
	}
	data := array.NewData(typ, c.rows, []*memory.Buffer{bitmap, buf}, nil, nulls, 0)
	defer data.Release()
	c.add(name, array.MakeFromData(data))
	return buf.Bytes()
}

// float64Column adds a float64 column to be filled in place.
func (c *columns) float64Column(name string) []float64 {
	return arrow.Float64Traits.CastFromBytes(c.fixedWidth(name, &arrow.Float64Type{}, nil))
}

// int32Column adds an int32 column to be filled in place.
func (c *columns) int32Column(name string) []int32 {
	return arrow.Int32Traits.CastFromBytes(c.fixedWidth(name, &arrow.Int32Type{}, nil))
}

// codes are the indices of a dictionary column, filled in place by set.
// Their width is the one pandas gives a Categorical of that many
// categories (int8 under 127, int16 under 32,767, int32 beyond), so pandas
// takes them as its codes as they are, without a conversion.
type codes struct {
	i8    []int8
	i16   []int16
	i32   []int32
	remap []int32 // from the caller's label numbers to the distinct labels'; nil when equal
}

// nulls stores -1, pandas' code of a missing value, at every row.
func (w codes) nulls() {
	fill(w.i8, -1)
	fill(w.i16, -1)
	fill(w.i32, -1)
}

// fill stores label number k at rows lo to hi-1.
func (w codes) fill(lo, hi int, k int32) {
	if w.remap != nil {
		k = w.remap[k]
	}
	switch {
	case w.i8 != nil:
		fill(w.i8[lo:hi], int8(k))
	case w.i16 != nil:
		fill(w.i16[lo:hi], int16(k))
	default:
		fill(w.i32[lo:hi], k)
	}
}

// set stores label number k at row i.
func (w codes) set(i int, k int32) {
	if w.remap != nil {
		k = w.remap[k]
	}
	switch {
	case w.i8 != nil:
		w.i8[i] = int8(k)
	case w.i16 != nil:
		w.i16[i] = int16(k)
	default:
		w.i32[i] = k
	}
}

// codeColumn adds a dictionary-encoded string column of the given labels
// (equal labels are merged: pandas requires distinct categories) and
// returns its codes to be filled in place: the caller sets every row that
// is not null. Null rows (valid[i] false) hold the code -1, pandas' code
// for a missing value.
func (c *columns) codeColumn(name string, labels []string, valid []bool) codes {
	distinct, remap := uniqueLabelMap(labels)
	if len(distinct) == 0 { // a dictionary needs one label for the null slots to point at
		distinct = []string{""}
	}
	dict := array.NewStringBuilder(c.mem)
	defer dict.Release()
	dict.AppendValues(distinct, nil)
	d := dict.NewArray()
	defer d.Release()

	var index arrow.FixedWidthDataType
	switch n := len(distinct); {
	case n < math.MaxInt8:
		index = &arrow.Int8Type{}
	case n < math.MaxInt16:
		index = &arrow.Int16Type{}
	default:
		index = &arrow.Int32Type{}
	}
	// The index array is built in place first, then wrapped: a dictionary
	// column is its indices plus the dictionary.
	tmp := newColumns(c.mem, c.rows)
	raw := tmp.fixedWidth(name, index, valid)
	ix := tmp.arrays[0]
	defer ix.Release()
	w := codes{remap: remap}
	switch index.ID() {
	case arrow.INT8:
		w.i8 = arrow.Int8Traits.CastFromBytes(raw)
	case arrow.INT16:
		w.i16 = arrow.Int16Traits.CastFromBytes(raw)
	default:
		w.i32 = arrow.Int32Traits.CastFromBytes(raw)
	}
	if valid != nil {
		w.nulls()
	}
	typ := &arrow.DictionaryType{IndexType: index, ValueType: arrow.BinaryTypes.String}
	c.add(name, array.NewDictionaryArray(typ, ix, d))
	return w
}

// batch returns the record batch and releases the columns' references.
// Its metadata are in the order of their keys, so that a table written
// twice is the same bytes twice.
func (c *columns) batch(meta map[string]string) arrow.RecordBatch {
	var md *arrow.Metadata
	if len(meta) > 0 {
		keys := slices.Sorted(maps.Keys(meta))
		vals := make([]string, len(keys))
		for i, k := range keys {
			vals[i] = meta[k]
		}
		m := arrow.NewMetadata(keys, vals)
		md = &m
	}
	schema := arrow.NewSchema(c.fields, md)
	rec := array.NewRecordBatch(schema, c.arrays, int64(c.rows))
	for _, a := range c.arrays {
		a.Release()
	}
	return rec
}

// finish is batch for a conversion that may be canceled (c.cancel): the
// record batch, or nothing and trace.ErrComputationCanceled, the columns
// built released.
func (c *columns) finish(meta map[string]string) (arrow.RecordBatch, error) {
	if c.stopped() {
		for _, a := range c.arrays {
			a.Release()
		}
		c.arrays, c.fields = nil, nil
		return nil, c.err
	}
	return c.batch(meta), nil
}

// uniqueLabelMap merges equal labels: it returns the distinct labels and
// the renumbering of the given ones (nil when they were all distinct).
func uniqueLabelMap(labels []string) ([]string, []int32) {
	first := make(map[string]int32, len(labels))
	remap := make([]int32, len(labels))
	var unique []string
	for i, l := range labels {
		j, ok := first[l]
		if !ok {
			j = int32(len(unique))
			first[l] = j
			unique = append(unique, l)
		}
		remap[i] = j
	}
	if len(unique) == len(labels) {
		return labels, nil
	}
	return unique, remap
}

// optionalCategories is categories where a negative code (trace.None, an
// entity without a value) becomes a null.
func (c *columns) optionalCategories(name string, labels []string, codes []int32) {
	if c.stopped() {
		return
	}
	var valid []bool
	for i, k := range codes {
		if k < 0 {
			if valid == nil {
				valid = make([]bool, len(codes))
				for j := range i {
					valid[j] = true
				}
			}
			continue
		}
		if valid != nil {
			valid[i] = true
		}
	}
	c.dictionary(name, labels, codes, valid)
}

// optionalFloat64s adds a float column where NaN, the model's mark of an
// unknown number, becomes a null.
func (c *columns) optionalFloat64s(name string, v []float64) {
	if c.stopped() {
		return
	}
	valid := make([]bool, len(v))
	nulls := false
	for i, x := range v {
		valid[i] = x == x
		nulls = nulls || !valid[i]
	}
	if !nulls {
		valid = nil
	}
	b := array.NewFloat64Builder(c.mem)
	defer b.Release()
	b.AppendValues(v, valid)
	c.add(name, b.NewArray())
}

// optionalStrings adds a string column where the empty string becomes a
// null.
func (c *columns) optionalStrings(name string, v []string) {
	c.optionalStringsOf(name, len(v), func(dst []byte, i int) []byte { return append(dst, v[i]...) })
}

// optionalStringsOf is optionalStrings for n rows whose bytes appendTo
// appends (row i's to dst): they go to the column's buffer with no Go
// string made for each row.
func (c *columns) optionalStringsOf(name string, n int, appendTo func(dst []byte, i int) []byte) {
	if c.stopped() {
		return
	}
	b := array.NewStringBuilder(c.mem)
	defer b.Release()
	b.Reserve(n)
	var row []byte
	for i := range n {
		if row = appendTo(row[:0], i); len(row) == 0 {
			b.AppendNull()
		} else {
			b.BinaryBuilder.Append(row)
		}
	}
	c.add(name, b.NewArray())
}
