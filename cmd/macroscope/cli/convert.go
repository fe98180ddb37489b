package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/macroscope-hpc/macroscope/arrowio/dataset"
	"github.com/macroscope-hpc/macroscope/core/errs"
)

var convertCommand = command{
	name:     "convert",
	summary:  "the trace as a hive-partitioned Parquet dataset (states, links, variables, events) for Dask, DuckDB, polars or R",
	synopsis: "[flags] trace",
	about: `
Reads the trace into memory and writes it as a hive-partitioned Parquet
dataset (docs/distributed.md): the tables states, links, variables and
events, each partitioned by rank (the process, task or run that each row's
container lies in, or the container type --partition-by names), the
hierarchy, and a marker file. macroscope.read and macroscope.read_micro
read it back, a part per file on a Dask cluster; DuckDB, polars, Spark and
R's arrow read it lazily, one partition without the others.`,
	run: runConvert,
}

func runConvert(c *cli) error {
	to := c.fs.String("to", "parquet-dataset", "what to write: parquet-dataset")
	by := c.fs.String("partition-by", dataset.Rank, "rank (the process, task or run of each row), a container type name, or none")
	out := c.fs.String("out", "", "the dataset's directory, which must not exist or be empty (default: the trace's name with the extension .parquet, in the current directory)")
	c.paramFlags["directory"] = "--out"
	c.traceFlags()
	if err := c.parse(1, 1); err != nil {
		return err
	}
	if *to != "parquet-dataset" {
		return errs.Argument("to", "%q: the trace is converted to parquet-dataset only", *to)
	}
	partitionBy := *by
	if partitionBy == "none" {
		partitionBy = ""
	}
	path := c.arg(0)
	dir := *out
	if dir == "" {
		name := filepath.Base(filepath.Clean(path))
		if ext := filepath.Ext(name); ext != "" && ext != name {
			name = strings.TrimSuffix(name, ext)
		}
		dir = name + ".parquet"
	}
	// Before the read: the directory must be new or empty, its parent
	// writable.
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return errs.Argument("directory", "%s exists and is not empty", dir)
	}
	if err := writableDir(filepath.Dir(filepath.Clean(dir))); err != nil {
		return fmt.Errorf("cannot write --out %s: %w", dir, err)
	}

	began := time.Now()
	t, err := c.readTrace(path)
	if err != nil {
		return err
	}
	st, err := dataset.Write(t, dir, dataset.Options{PartitionBy: partitionBy, Format: c.formatName, Cancel: c.ctx.Done()})
	if err != nil {
		return err
	}
	c.say("wrote", "%s: %d states, %d links, %d variables, %d events in %d partitions", dir,
		st.Rows["states"], st.Rows["links"], st.Rows["variables"], st.Rows["events"], st.Partitions)
	c.say("done in", "%.2f s", time.Since(began).Seconds())
	return nil
}
