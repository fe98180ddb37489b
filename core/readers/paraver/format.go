package paraver

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/textlines"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Format is the Paraver format, for the door (package ingest).
var Format = ingest.Format{
	Name:       "paraver",
	Summary:    "Paraver .prv (Extrae, Dimemas, ovni), with the .pcf and .row beside it",
	Extensions: []string{".prv"},
	NotTraces: []ingest.NotTrace{{Ending: ".mpit", Is: intermediate}, {Ending: ".mpits", Is: intermediate},
		{Ending: ".ttmp", Is: unfinished}, {Ending: ".stmp", Is: unfinished}},
	Sniff: func(h []byte) bool {
		return bytes.HasPrefix(h, []byte("#Paraver")) || bytes.HasPrefix(h, []byte("#PARAVER "))
	},
	ExplainDir: explainDir,
	Options: []ingest.Option{
		{Name: "view", Kind: ingest.String, Default: "thread", Choices: []string{"thread", "cpu"},
			Doc: `"thread" places records on application > task > thread, "cpu" on node > CPU`},
		ingest.MaxDecompressedOption,
		{Name: "part_start", Kind: ingest.Int, Default: 0,
			Doc: "read only the records of the lines from this byte (after the header) to part_end: a part of the file, for a distributed read"},
		{Name: "part_end", Kind: ingest.Int, Default: 0, Doc: "the end of the byte range part_start starts (0: the whole file)"},
	},
	Open: func(path string, v ingest.Values) (*ingest.Source, error) {
		o := options{View: threadView, MaxDecompressed: ingest.MaxDecompressed(v)}
		if v.String("view") == "cpu" {
			o.View = cpuView
		}
		if from, to := int64(v.Int("part_start")), int64(v.Int("part_end")); to > 0 {
			return &ingest.Source{Read: func(sink trace.Sink, ro trace.ReadOptions) error { return readRange(path, o, from, to, sink, ro) },
				Job: true, Files: []string{path}}, nil
		}
		return &ingest.Source{Read: func(sink trace.Sink, ro trace.ReadOptions) error { return readWith(path, o, sink, ro) },
			Job: true, Files: []string{path}}, nil
	},
	// Byte ranges of whole lines, one after the other.
	Parts: textlines.RangeParts(ranges),
}

// intermediate says what Extrae's intermediate files are and the way to
// a Paraver trace: each *.mpit holds one thread's raw records (binary,
// with no header to tell them by), TRACE.mpits lists them, and mpi2prv
// merges them into the .prv, .pcf and .row that are read.
const intermediate = "Extrae's intermediate trace (*.mpit files, one per thread, listed by TRACE.mpits), not yet a Paraver trace: " +
	"merge them with mpi2prv (mpi2prv -f TRACE.mpits -o trace.prv) and read the .prv it writes"

// unfinished says what Extrae's temporary files are: a traced process
// writes its records to *.ttmp (and its samples to *.stmp) and renames
// them *.mpit (*.sample) when it finishes tracing (Extrae_fini, or the
// end of MPI_Finalize); one left behind is of a process that did not get
// there (killed, crashed, or still running), and mpi2prv does not take it.
const unfinished = "Extrae's temporary trace file (*.ttmp records, *.stmp samples) of a process that did not finish tracing " +
	"(Extrae renames it *.mpit when the process ends; killed, crashed or still running, it did not), not a Paraver trace: " +
	"trace the run to its end, then merge the *.mpit files with mpi2prv (mpi2prv -f TRACE.mpits -o trace.prv) and read the .prv it writes"

// explainDir says what dir is when it holds Extrae's intermediate files
// rather than a Paraver trace: *.mpit files (a set-N directory), with a
// warning when temporary files of unfinished processes are beside them;
// only temporary *.ttmp or *.stmp files; or a *.mpits list without a
// merged .prv beside it. "" otherwise.
func explainDir(dir string) string {
	left, _ := filepath.Glob(filepath.Join(dir, "*.ttmp"))
	if len(left) == 0 {
		// Samples only (a thread's records were renamed, its samples not).
		left, _ = filepath.Glob(filepath.Join(dir, "*.stmp"))
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.mpit")); len(m) > 0 {
		if len(left) > 0 {
			return fmt.Sprintf(partial, intermediate, len(left), filepath.Base(left[0]))
		}
		return intermediate
	}
	if len(left) > 0 {
		return unfinished
	}
	lists, _ := filepath.Glob(filepath.Join(dir, "*.mpits"))
	prv, _ := filepath.Glob(filepath.Join(dir, "*.prv*"))
	if len(lists) > 0 && len(prv) == 0 {
		return intermediate
	}
	return ""
}

// partial adds to intermediate (%s) that some threads did not finish
// tracing: %d temporary files (the first, %s) left beside the *.mpit
// files. mpi2prv merges the *.mpit files only, so the trace it writes
// lacks those threads' records, with no word of it.
const partial = "%s; but %d of its files are still temporary (%s...): the processes that wrote them did not finish tracing " +
	"(killed, crashed or still running), and the trace mpi2prv merges will lack their records"
