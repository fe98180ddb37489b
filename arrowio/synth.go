package arrowio

import (
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/arrowio/files"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/gen/synth"
)

// SynthSchema is the schema of the synthetic interval tables
// WriteSynthParquet writes: one row per state interval, in the order of
// their start.
//
//	resource                      path of the core, "site-0/cluster-1/machine-0/core-3"
//	site, cluster, machine, core  the core's indices among its siblings
//	state                         the state's name
//	start, end                    the interval in seconds
//	start_ns, end_ns              the same in nanoseconds, exact
var SynthSchema = arrow.NewSchema([]arrow.Field{
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

// synthBatchRows is the number of rows of a record batch, and of a row
// group.
const synthBatchRows = 1 << 17

// WriteSynth writes the synthetic trace c describes to path, as a Pajé
// trace or a Parquet table of intervals (format "paje" or "parquet"; ""
// chooses by the file's extension). A file left incomplete by an error is
// removed.
func WriteSynth(path, format string, c synth.Config) (synth.Stats, error) {
	if format == "" {
		format = synth.FormatOf(path)
	}
	switch strings.ToLower(format) {
	case synth.FormatParquet:
		return WriteSynthParquet(path, c)
	case synth.FormatPaje, "pajé", "trace":
		return synth.WriteFile(path, c)
	}
	return synth.Stats{}, errs.Argument("format", "unknown format %q (use paje or parquet)", format)
}

// WriteSynthParquet writes the state intervals of the trace c describes
// to the Parquet file path (see SynthSchema), batch by batch.
func WriteSynthParquet(path string, c synth.Config) (synth.Stats, error) {
	c.Format = synth.FormatParquet // for the memory estimate
	if err := c.Validate(); err != nil {
		return synth.Stats{}, err
	}
	if err := c.CheckDisk(path, synth.FormatParquet); err != nil {
		return synth.Stats{}, err
	}
	// Instants are nearly all distinct: a dictionary of them would only
	// cost time. Paths, indices and states repeat.
	noDict := files.ParquetOptions{NoDictionary: []string{"start", "end", "start_ns", "end_ns"}}
	out, err := files.CreateParquet(path, SynthSchema, noDict)
	if err != nil {
		return synth.Stats{}, err
	}
	b := array.NewRecordBuilder(memory.NewGoAllocator(), SynthSchema)
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
	var pathBuf []byte
	rows := 0
	st, err := synth.Each(c, func(iv synth.Interval) error {
		pathBuf = synth.AppendPath(pathBuf[:0], iv.Core)
		resource.BinaryBuilder.Append(pathBuf)
		for i, x := range iv.Core {
			level[i].Append(int32(x))
		}
		state.Append(iv.State)
		start.Append(iv.Start.Seconds())
		end.Append(iv.End.Seconds())
		startNs.Append(int64(iv.Start))
		endNs.Append(int64(iv.End))
		if rows++; rows == synthBatchRows {
			rows = 0
			return flush()
		}
		return nil
	})
	if err == nil && (rows > 0 || st.States == 0) {
		err = flush()
	}
	if err != nil {
		out.Abort()
		return synth.Stats{}, err
	}
	if err := out.Close(); err != nil {
		os.Remove(path)
		return synth.Stats{}, err
	}
	if fi, err := os.Stat(path); err == nil {
		st.Bytes = fi.Size()
	}
	return st, nil
}
