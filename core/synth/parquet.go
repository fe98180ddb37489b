package synth

import (
	"os"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"

	"github.com/macroscope-hpc/macroscope/arrowio/files"
)

// IntervalSchema is the schema of the interval tables WriteParquet writes:
// one row per state interval, in the order of their start.
//
//	resource                      path of the core, "site-0/cluster-1/machine-0/core-3"
//	site, cluster, machine, core  the core's indices among its siblings
//	state                         the state's name
//	start, end                    the interval in seconds
//	start_ns, end_ns              the same in nanoseconds, exact
var IntervalSchema = arrow.NewSchema([]arrow.Field{
	{Name: "resource", Type: arrow.BinaryTypes.String},
	{Name: "site", Type: arrow.PrimitiveTypes.Int32},
	{Name: "cluster", Type: arrow.PrimitiveTypes.Int32},
	{Name: "machine", Type: arrow.PrimitiveTypes.Int32},
	{Name: "core", Type: arrow.PrimitiveTypes.Int32},
	{Name: "state", Type: arrow.BinaryTypes.String},
	{Name: "start", Type: arrow.PrimitiveTypes.Float64},
	{Name: "end", Type: arrow.PrimitiveTypes.Float64},
	{Name: "start_ns", Type: arrow.PrimitiveTypes.Int64},
	{Name: "end_ns", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// batchRows is the number of rows of a record batch, and of a row group.
const batchRows = 1 << 17

// WriteParquet writes the state intervals of the trace c describes to the
// Parquet file path (see IntervalSchema), batch by batch.
func WriteParquet(path string, c Config) (Stats, error) {
	if err := c.Validate(); err != nil {
		return Stats{}, err
	}
	p := newPlan(&c)
	// Instants are nearly all distinct: a dictionary of them would only
	// cost time. Paths, indices and states repeat.
	var noDict []parquet.WriterProperty
	for _, col := range []string{"start", "end", "start_ns", "end_ns"} {
		noDict = append(noDict, parquet.WithDictionaryFor(col, false))
	}
	out, err := files.CreateParquet(path, IntervalSchema, noDict...)
	if err != nil {
		return Stats{}, err
	}
	b := array.NewRecordBuilder(memory.NewGoAllocator(), IntervalSchema)
	defer b.Release()
	resource := b.Field(0).(*array.StringBuilder)
	level := [4]*array.Int32Builder{}
	for i := range level {
		level[i] = b.Field(1 + i).(*array.Int32Builder)
	}
	state := b.Field(5).(*array.StringBuilder)
	start, end := b.Field(6).(*array.Float64Builder), b.Field(7).(*array.Float64Builder)
	startNs, endNs := b.Field(8).(*array.Int64Builder), b.Field(9).(*array.Int64Builder)

	flush := func() error {
		rec := b.NewRecordBatch()
		defer rec.Release()
		return out.Write(rec)
	}
	st := Stats{Containers: c.NumContainers(), Duration: p.duration}
	g := newGenerator(p)
	var pathBuf []byte
	rows := 0
	for {
		iv, ok := g.next()
		if !ok {
			break
		}
		idx := p.indices(iv.core)
		pathBuf = appendPath(pathBuf[:0], idx)
		resource.BinaryBuilder.Append(pathBuf)
		for i, x := range idx {
			level[i].Append(int32(x))
		}
		state.Append(p.names[iv.state])
		start.Append(iv.start.Seconds())
		end.Append(iv.end.Seconds())
		startNs.Append(int64(iv.start))
		endNs.Append(int64(iv.end))
		st.States++
		if rows++; rows == batchRows {
			if err := flush(); err != nil {
				out.Abort()
				return Stats{}, err
			}
			rows = 0
		}
	}
	if rows > 0 || st.States == 0 {
		if err := flush(); err != nil {
			out.Abort()
			return Stats{}, err
		}
	}
	if err := out.Close(); err != nil {
		os.Remove(path)
		return Stats{}, err
	}
	if fi, err := os.Stat(path); err == nil {
		st.Bytes = fi.Size()
	}
	return st, nil
}

// indices returns the site, cluster, machine and core indices of a core.
func (p *plan) indices(core int) [4]int {
	return [4]int{core / p.perSite, core % p.perSite / p.perCluster,
		core % p.perCluster / p.perMachine, core % p.perMachine}
}

// appendPath writes the path of the core at idx, with the separator of
// the trace tables of arrowio (arrowio.PathSep).
func appendPath(b []byte, idx [4]int) []byte {
	for l, x := range idx {
		if l > 0 {
			b = append(b, '/')
		}
		b = append(b, levelNames[l]...)
		b = append(b, '-')
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return b
}
