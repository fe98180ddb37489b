package pybind

import (
	"github.com/macroscope-hpc/macroscope/arrowio/dataset"
)

// WriteDataset writes the trace as a hive-partitioned Parquet dataset in
// dir (see package dataset), partitioned by partitionBy: "rank", a
// container type, or "" for one partition. It returns the rows of each
// table as JSON.
func (t *Trace) WriteDataset(dir, partitionBy string) (js string, err error) {
	defer guard(&err)
	st, err := dataset.Write(t.t, dir, dataset.Options{PartitionBy: partitionBy, Format: t.format})
	if err != nil {
		return "", err
	}
	return toJSON(map[string]any{"rows": st.Rows, "partitions": st.Partitions})
}
