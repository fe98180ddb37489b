package pybind

import (
	"errors"

	"github.com/macroscope-hpc/macroscope/arrowio/dataset"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// StartWriteDataset starts writing the trace as a hive-partitioned Parquet
// dataset in dir (see package dataset), partitioned by partitionBy:
// "rank", a container type, or "" for one partition. It is a Work (Python
// writes the Parquet files as it polls, see ParquetRequest), whose JSON
// is the rows of each table.
func (t *Trace) StartWriteDataset(dir, partitionBy string) (w *Work, err error) {
	defer guard(&err)
	var js string
	w = startWork(func(ctl *aggregate.Control) error {
		st, err := dataset.Write(t.t, dir, dataset.Options{PartitionBy: partitionBy, Format: t.format, Cancel: ctl.Cancel})
		if errors.Is(err, trace.ErrCanceled) {
			return aggregate.ErrCanceled
		}
		if err != nil {
			return err
		}
		js, err = toJSON(map[string]any{"rows": st.Rows, "partitions": st.Partitions})
		return err
	})
	w.result = func() any { return js }
	return w, nil
}
