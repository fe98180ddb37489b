// Package arrowio converts Macroscope's results to Apache Arrow record
// batches, the one representation every front end shares: Python receives
// them through the Arrow C stream interface without a copy, and files are
// written from them as Parquet, Feather or CSV.
//
// Every function takes the allocator the arrays live in. Arrays crossing to
// another runtime through the C data interface must not live in Go memory,
// so the Python bridge passes a C allocator (memory/mallocator).
package arrowio

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// columns assembles a record batch column by column.
type columns struct {
	mem    memory.Allocator
	fields []arrow.Field
	arrays []arrow.Array
	rows   int
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
	b := array.NewFloat64Builder(c.mem)
	defer b.Release()
	b.AppendValues(v, nil)
	c.add(name, b.NewArray())
}

func (c *columns) int64s(name string, v []int64) {
	b := array.NewInt64Builder(c.mem)
	defer b.Release()
	b.AppendValues(v, nil)
	c.add(name, b.NewArray())
}

func (c *columns) int32s(name string, v []int32) {
	b := array.NewInt32Builder(c.mem)
	defer b.Release()
	b.AppendValues(v, nil)
	c.add(name, b.NewArray())
}

func (c *columns) bools(name string, v []bool) {
	b := array.NewBooleanBuilder(c.mem)
	defer b.Release()
	b.AppendValues(v, nil)
	c.add(name, b.NewArray())
}

func (c *columns) strings(name string, v []string) {
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
	labels, codes = uniqueLabels(labels, codes)
	c.dictionary(name, labels, codes, nil)
}

// dictionary adds a dictionary-encoded string column of distinct labels;
// valid marks the rows that are not null (nil: every row).
func (c *columns) dictionary(name string, labels []string, codes []int32, valid []bool) {
	dict := array.NewStringBuilder(c.mem)
	defer dict.Release()
	dict.AppendValues(labels, nil)
	d := dict.NewArray()
	defer d.Release()
	idx := array.NewInt32Builder(c.mem)
	defer idx.Release()
	idx.AppendValues(codes, valid)
	ix := idx.NewArray()
	defer ix.Release()
	typ := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	c.add(name, array.NewDictionaryArray(typ, ix, d))
}

// batch returns the record batch and releases the columns' references.
func (c *columns) batch(meta map[string]string) arrow.RecordBatch {
	var md *arrow.Metadata
	if len(meta) > 0 {
		keys := make([]string, 0, len(meta))
		vals := make([]string, 0, len(meta))
		for k, v := range meta {
			keys = append(keys, k)
			vals = append(vals, v)
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

// uniqueLabels merges equal labels, renumbering codes if needed.
func uniqueLabels(labels []string, codes []int32) ([]string, []int32) {
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
		return labels, codes
	}
	out := make([]int32, len(codes))
	for i, c := range codes {
		out[i] = remap[c]
	}
	return unique, out
}

// optionalCategories is categories where a negative code (trace.None, an
// entity without a value) becomes a null.
func (c *columns) optionalCategories(name string, labels []string, codes []int32) {
	valid := make([]bool, len(codes))
	fixed := make([]int32, len(codes))
	nulls := false
	for i, k := range codes {
		if k >= 0 {
			valid[i], fixed[i] = true, k
		} else {
			nulls = true
		}
	}
	if !nulls {
		c.categories(name, labels, codes)
		return
	}
	if len(labels) == 0 { // a dictionary needs one label for the null slots to point at
		labels = []string{""}
	}
	labels, fixed = uniqueLabels(labels, fixed)
	c.dictionary(name, labels, fixed, valid)
}

// optionalFloat64s adds a float column where NaN, the model's mark of an
// unknown number, becomes a null.
func (c *columns) optionalFloat64s(name string, v []float64) {
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
	valid := make([]bool, len(v))
	for i, s := range v {
		valid[i] = s != ""
	}
	b := array.NewStringBuilder(c.mem)
	defer b.Release()
	b.AppendValues(v, valid)
	c.add(name, b.NewArray())
}
