package partition

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/micro"
)

// Part is a part of a trace: a file or archive read with a format and
// options that select the part. It is plain data (JSON), shipped to the
// process that reads it.
type Part struct {
	Path    string        `json:"path"`
	Format  string        `json:"format"`
	Options ingest.Values `json:"options,omitempty"`
	// Run, if set, names the container the part's hierarchy goes under
	// (a file of several: see Runs).
	Run string `json:"run,omitempty"`
	// Label says which part it is, for messages.
	Label string `json:"label"`
}

// A Plan is the parts of a trace, in order, and how their definitions
// interleave in the whole trace.
type Plan struct {
	Parts []Part      `json:"parts"`
	Order micro.Order `json:"order"`
}

// PlanFile lists at most n parts of the trace at path, read with format
// ("" to detect it) and options, as its format cuts it (ingest.Parts):
// byte ranges of a Paraver file or of pj_dump's output, groups of
// consecutive trace lines of an HPCToolkit database, groups of
// consecutive location groups of an OTF2 archive, for instance. The
// whole trace is one part when its format has no parts or cannot cut it.
func PlanFile(path, format string, opt ingest.Values, n int) (*Plan, error) {
	if n < 1 {
		return nil, errs.Argument("partitions", "must be at least 1, got %d", n)
	}
	f, err := formatOf(path, format)
	if err != nil {
		return nil, err
	}
	plan := &Plan{Order: micro.ByPart}
	if f.Parts != nil {
		parts, err := f.Parts.Cut(path, n)
		if err != nil {
			return nil, err
		}
		if f.Parts.Interleaved {
			plan.Order = micro.ByTime
		}
		for _, p := range parts {
			plan.Parts = append(plan.Parts, Part{Path: path, Format: f.Name, Options: with(opt, p.Options), Label: p.Label})
		}
	}
	if len(plan.Parts) == 0 {
		plan.Parts = []Part{{Path: path, Format: f.Name, Options: opt, Label: filepath.Base(path)}}
	}
	return plan, nil
}

// formatOf returns the format called name, or the one detected for the
// trace at path when name is "".
func formatOf(path, name string) (ingest.Format, error) {
	if name == "" {
		return formats.Detect(path)
	}
	return formats.ByName(name)
}

// with returns the options of a read, opt, with those that select a part
// added, or replacing opt's.
func with(opt, part ingest.Values) ingest.Values {
	out := ingest.Values{}
	for k, v := range opt {
		out[k] = v
	}
	for k, v := range part {
		out[k] = v
	}
	return out
}

// PlanRuns makes one part per file, each under a container of its own
// named after the file (its base name, numbered when two are alike).
func PlanRuns(paths []string, format string, opt ingest.Values) (*Plan, error) {
	if len(paths) == 0 {
		return nil, errs.Argument("path", "no file given")
	}
	plan := &Plan{Order: micro.ByPart}
	for i, name := range RunNames(paths) {
		if _, err := os.Stat(paths[i]); err != nil {
			return nil, err
		}
		plan.Parts = append(plan.Parts, Part{Path: paths[i], Format: format, Options: opt, Run: name, Label: paths[i]})
	}
	return plan, nil
}

// RunNames names the runs of paths: their base names, with a suffix
// " (2)", " (3)"... for a name already taken.
func RunNames(paths []string) []string {
	seen := map[string]int{}
	out := make([]string, len(paths))
	for i, p := range paths {
		name := filepath.Base(filepath.Clean(p))
		seen[name]++
		if k := seen[name]; k > 1 {
			name = fmt.Sprintf("%s (%d)", name, k)
		}
		out[i] = name
	}
	return out
}
