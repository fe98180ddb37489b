package partition

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/readers/hpctoolkit"
	"github.com/macroscope-hpc/macroscope/core/readers/otf2"
	"github.com/macroscope-hpc/macroscope/core/readers/paraver"
	"github.com/macroscope-hpc/macroscope/core/readers/pjdump"
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
// ("" to detect it) and options: byte ranges of a Paraver file or of
// pj_dump's output (plain, not a directory of split files), groups of
// consecutive trace lines of an HPCToolkit database, groups of
// consecutive location groups of an OTF2 archive (a group each when n is
// at least their number), the whole trace as one part for formats
// without parts.
func PlanFile(path, format string, opt ingest.Values, n int) (*Plan, error) {
	if n < 1 {
		return nil, errs.Argument("partitions", "must be at least 1, got %d", n)
	}
	var f ingest.Format
	var err error
	if format == "" {
		f, err = formats.Detect(path)
	} else {
		f, err = formats.ByName(format)
	}
	if err != nil {
		return nil, err
	}
	with := func(extra ingest.Values) ingest.Values {
		out := ingest.Values{}
		for k, v := range opt {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	plan := &Plan{Order: micro.ByPart}
	switch f.Name {
	case otf2.Format.Name:
		groups, err := otf2.LocationGroups(path)
		if err != nil {
			return nil, err
		}
		plan.Order = micro.ByTime
		// At most n parts of consecutive groups, as even as can be: a task
		// per group costs more than the read of a small group.
		k := min(n, len(groups))
		for i := range k {
			var ids []string
			for _, g := range groups[i*len(groups)/k : (i+1)*len(groups)/k] {
				ids = append(ids, strconv.FormatUint(uint64(g), 10))
			}
			label := "location group " + ids[0]
			if len(ids) > 1 {
				label = fmt.Sprintf("location groups %s-%s", ids[0], ids[len(ids)-1])
			}
			plan.Parts = append(plan.Parts, Part{Path: path, Format: f.Name,
				Options: with(ingest.Values{"location_groups": ids}), Label: label})
		}
	case hpctoolkit.Format.Name:
		lines, err := hpctoolkit.TraceLines(path)
		if err != nil {
			return nil, err
		}
		// At most n parts of consecutive trace lines (threads, ranks, GPU
		// streams), as even as can be.
		k := min(n, lines)
		for i := range k {
			a, b := i*lines/k, (i+1)*lines/k
			label := fmt.Sprintf("trace line %d", a)
			if b > a+1 {
				label = fmt.Sprintf("trace lines %d-%d", a, b-1)
			}
			plan.Parts = append(plan.Parts, Part{Path: path, Format: f.Name,
				Options: with(ingest.Values{"line_start": a, "line_end": b}), Label: label})
		}
	case paraver.Format.Name, pjdump.Format.Name:
		cut := paraver.Ranges
		if f.Name == pjdump.Format.Name {
			cut = pjdump.Ranges // nil for what cannot be cut: one part
		}
		ranges, err := cut(path, n)
		if err != nil {
			return nil, err
		}
		for _, r := range ranges {
			plan.Parts = append(plan.Parts, Part{Path: path, Format: f.Name,
				Options: with(ingest.Values{"part_start": int(r[0]), "part_end": int(r[1])}),
				Label:   fmt.Sprintf("bytes %d-%d", r[0], r[1])})
		}
	}
	if len(plan.Parts) == 0 {
		plan.Parts = []Part{{Path: path, Format: f.Name, Options: opt, Label: filepath.Base(path)}}
	}
	return plan, nil
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
