package paraver

import (
	"bytes"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Format is the Paraver format, for the door (package ingest).
var Format = ingest.Format{
	Name:       "paraver",
	Summary:    "Paraver .prv (Extrae, Dimemas), with the .pcf and .row beside it",
	Extensions: []string{".prv"},
	Sniff:      func(h []byte) bool { return bytes.HasPrefix(h, []byte("#Paraver")) },
	Options: []ingest.Option{
		{Name: "view", Kind: ingest.String, Default: "thread", Choices: []string{"thread", "cpu"},
			Doc: `"thread" places records on application > task > thread, "cpu" on node > CPU`},
		ingest.MaxDecompressedOption,
	},
	Open: func(path string, v ingest.Values) (*ingest.Source, error) {
		o := Options{View: ByThread, MaxDecompressed: ingest.MaxDecompressed(v)}
		if v.String("view") == "cpu" {
			o.View = ByCPU
		}
		return &ingest.Source{Read: func(sink trace.Sink, ro trace.ReadOptions) error { return ReadWith(path, o, sink, ro) },
			Files: []string{path}}, nil
	},
}
