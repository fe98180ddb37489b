package pjdump

import (
	"bytes"
	"os"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/textlines"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Format is pj_dump's CSV output (and StarVZ's directories of it), for the
// door (package ingest).
var Format = ingest.Format{
	Name:       "pjdump",
	Summary:    "pj_dump CSV output, or a StarVZ directory of split CSV files",
	Extensions: []string{".csv"},
	Sniff:      looks,
	SniffDir:   func(dir string) bool { files, err := dirFiles(dir); return err == nil && len(files) > 0 },
	Options: []ingest.Option{
		{Name: "skip_inverted", Kind: ingest.Bool, Default: false,
			Doc: "skip the rows that end before they start (StarVZ's dumps hold a few), counting them, instead of failing"},
		{Name: "time_unit", Kind: ingest.String, Default: "auto", Choices: trace.TimeUnitNames,
			Doc: "the unit of the dump's dates: auto reads seconds, pj_dump's unit, except for StarPU's traces (StarVZ's dumps), whose dates are milliseconds"},
		ingest.MaxDecompressedOption,
		{Name: "part_start", Kind: ingest.Int, Default: 0,
			Doc: "read only the records of the lines from this byte to part_end (a plain file's part, for a distributed read: see Ranges)"},
		{Name: "part_end", Kind: ingest.Int, Default: 0, Doc: "the end of the byte range part_start starts (0: the whole file)"},
	},
	Open: func(path string, v ingest.Values) (*ingest.Source, error) {
		skip := v.Bool("skip_inverted")
		limit := ingest.MaxDecompressed(v)
		from, to := int64(v.Int("part_start")), int64(v.Int("part_end"))
		// The unit of a whole read is decided when it reads, with its
		// options: the scan holds what a line holds (a compressed file
		// may expand to a line of hundreds of megabytes), weighed
		// against the read's budget, and stops at its cancel. A part,
		// of a plain file cut into byte ranges, decides once it is
		// opened: every part then scans without a budget, but by blocks.
		name := v.String("time_unit")
		var unit trace.Time
		if to > 0 {
			var err error
			if unit, err = timeUnit(path, name, readOptions{MaxDecompressed: limit}); err != nil {
				return nil, err
			}
		}
		files := []string{path}
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			files, _ = dirFiles(path)
		}
		return &ingest.Source{
			Read: func(sink trace.Sink, ro trace.ReadOptions) error {
				opt := readOptions{ReadOptions: ro, MaxDecompressed: limit, TimeUnit: unit}
				if unit == 0 {
					var err error
					if opt.TimeUnit, err = timeUnit(path, name, opt); err != nil {
						return err
					}
				}
				if skip {
					var named int
					opt.OnInverted = func(file string, line int) {
						// Name the first few, count them all.
						if named < 5 {
							ro.Warn("skipped a row ending before it starts: %s:%d", file, line)
						}
						named++
						ro.Skip("rows ending before they start", 1)
					}
				}
				if to > 0 {
					return readRange(path, from, to, sink, opt)
				}
				return readWith(path, sink, opt)
			},
			StartOrdered: true,
			Files:        files,
		}, nil
	},
	// Byte ranges of whole lines, one after the other, never cut before a
	// nested state; none for what cannot be cut (a directory of split
	// files, a compressed file): it is read whole.
	Parts: textlines.RangeParts(ranges),
	WriteOptions: []ingest.Option{
		{Name: "output", Kind: ingest.String, Default: "dump", Choices: []string{"dump", "entity_hierarchy", "type_hierarchy"},
			Doc: "what to write: pj_dump's output, or the container hierarchy (pj_dump --entity-hierarchy) or the type hierarchy (pj_dump --type-hierarchy)"},
		{Name: "style", Kind: ingest.String, Default: "pajeng", Choices: []string{"pajeng", "upstream"},
			Doc: "pajeng writes as PajeNG 1.3.6's pj_dump (Debian's, Ubuntu's), upstream as PajeNG's development version (names keep their quotes, no entity is left out)"},
		{Name: "header", Kind: ingest.Bool, Default: false,
			Doc: "begin the dump with the names of its columns, as pj_dump -h"},
		{Name: "precision", Kind: ingest.Int, Default: 6,
			Doc: "the decimals of the times and values of entities, as pj_dump -l (0: none)"},
	},
	Write: writeFormat,
}

// looks reports whether the first bytes of a file look like pj_dump's
// output: a row of one of its kinds.
func looks(h []byte) bool {
	for _, kind := range []string{"Container, ", "State, ", "Variable, ", "Link, ", "Event, "} {
		if bytes.HasPrefix(h, []byte(kind)) {
			return true
		}
	}
	return false
}

// timeUnit is the unit the time_unit option names; auto decides from the
// hierarchy of the whole dump (StarPU), not from a part's rows, so that
// every part of a partitioned read decides the same.
// The scan stops, with its error, at the read's cancel or budget.
func timeUnit(path, name string, opt readOptions) (trace.Time, error) {
	if unit, ok := trace.TimeUnit(name); ok {
		return unit, nil
	}
	// Its cancel and budget only: its progress and notes are the read's.
	starpu, err := starPU(path, readOptions{ReadOptions: trace.ReadOptions{Cancel: opt.Cancel, Hold: opt.Hold}, MaxDecompressed: opt.MaxDecompressed})
	if err := opt.Canceled(); err != nil {
		return 0, err
	}
	if err != nil || !starpu {
		// An input that cannot be read fails the read, which says why.
		return trace.Second, nil
	}
	ms, _ := trace.TimeUnit("ms")
	return ms, nil
}
