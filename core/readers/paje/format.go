package paje

import (
	"bytes"
	"path/filepath"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Format is the Pajé format, for the door (package ingest).
var Format = ingest.Format{
	Name:        "paje",
	Summary:     "Pajé (PajeNG, SimGrid, StarPU, Akypuera)",
	Extensions:  []string{".paje", ".trace"},
	Sniff:       looks,
	ExplainFile: explainFile,
	ExplainDir:  explainDir,
	Options: []ingest.Option{
		{Name: "strict", Kind: ingest.Bool, Default: false,
			Doc: "read exactly as pj_dump (PajeNG 1.3.6) does, refusing what it refuses and rounding variables to single precision; an incomplete trace (a cut last line) fails the read"},
		{Name: "ignore_incomplete_links", Kind: ingest.Bool, Default: false,
			Doc: "drop the links that never get both ends instead of failing"},
		{Name: "paths", Kind: ingest.Strings,
			Doc: "more files read after the first, as one trace (a header file and per-process files)"},
		{Name: "sort", Kind: ingest.Bool, Default: false,
			Doc: "read a trace that is not sorted by time (StarPU's FxT conversions before starpu_paje_sort, NGSolve's ngcore traces): its events are sorted by date first, stably, in runs of 64 MB on disk"},
		{Name: "time_unit", Kind: ingest.String, Default: "auto", Choices: trace.TimeUnitNames,
			Doc: "the unit of the trace's dates: auto reads seconds, Pajé's usual unit, except for StarPU's and NGSolve's traces (starpu_fxt_tool and ngcore write milliseconds) unless strict"},
		ingest.MaxDecompressedOption,
	},
	Open: open,
}

// rastroInit is how every file librastro writes begins (Akypuera's
// rastro-RANK-THREAD.rst): the header word, little-endian, of its first
// event, the initialisation event (type 0x3fff in the 14 high bits, then
// the codes of its fields, two uint64 and a string).
var rastroInit = []byte{0x10, 0x44, 0xff, 0xff}

// rastroWay says what librastro files are not yet, and the way there.
const rastroWay = "not yet a Pajé trace: convert all the run's files with aky_converter (aky_converter rastro-*.rst > trace.paje) " +
	"and read the Pajé trace it writes"

// explainFile says what a file is when its first bytes are those of
// Akypuera's binary records (librastro), which aky_converter turns into
// the Pajé trace that is read. "" otherwise.
func explainFile(head []byte) string {
	if bytes.HasPrefix(head, rastroInit) {
		return "a librastro file of Akypuera (rastro-RANK-THREAD.rst: binary records of one MPI process), " + rastroWay
	}
	return ""
}

// explainDir says what dir is when it holds Akypuera's librastro files
// (the traces directory of a run) and no Pajé trace: one of its first
// *.rst files (ingest.AnyHead) begins as librastro's do. "" otherwise.
func explainDir(dir string) string {
	if ingest.AnyHead(filepath.Join(dir, "*.rst"), 16, func(head []byte) bool { return explainFile(head) != "" }) {
		return "a directory of Akypuera's librastro files (rastro-RANK-THREAD.rst, one per MPI process), " + rastroWay
	}
	return ""
}

func open(path string, v ingest.Values) (*ingest.Source, error) {
	opt := Options{}
	if v.Bool("strict") {
		opt = PajeNG()
	}
	opt.IgnoreIncompleteLinks = v.Bool("ignore_incomplete_links")
	opt.MaxDecompressed = ingest.MaxDecompressed(v)
	opt.Sort = v.Bool("sort")
	files := append([]string{path}, v.Strings("paths")...)
	if unit := v.String("time_unit"); unit != "auto" && unit != "" {
		opt.TimeUnit, _ = trace.TimeUnit(unit)
	} else if v.Bool("strict") {
		// pj_dump takes every date for seconds: so does its emulation.
	} else if head, err := ingest.Head(path, 64<<10); err == nil && writesMilliseconds(head) {
		opt.TimeUnit, _ = trace.TimeUnit("ms")
	}
	probe := func() (trace.Time, trace.Time, bool) { return extent(files, opt) }
	if opt.Sort {
		// The first and last lines of an unsorted trace do not tell its
		// extent: a wrong guess would cost a second sort.
		probe = nil
	}
	return &ingest.Source{
		Read: func(sink trace.Sink, ro trace.ReadOptions) error {
			o := opt
			o.ReadOptions = ro
			return readFiles(files, sink, o)
		},
		// The first and last lines of the files tell the extent: one read
		// is enough to build a model unless the guess is wrong.
		Probe: probe,
		Files: files,
	}, nil
}

// looks reports whether the first bytes of a file look like a Pajé
// trace: comments, then an event definition.
func looks(h []byte) bool {
	for _, line := range bytes.Split(h, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		return bytes.HasPrefix(line, []byte("%EventDef")) || bytes.HasPrefix(line, []byte("% EventDef"))
	}
	return false
}
