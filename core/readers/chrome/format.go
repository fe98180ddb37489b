package chrome

import (
	"bytes"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Format is the Chrome trace-event format, for the door (package ingest).
var Format = ingest.Format{
	Name:       "chrome",
	Summary:    "Chrome/Perfetto trace-event JSON (Chrome, catapult, Perfetto, PyTorch Kineto, PerfFlowAspect)",
	Extensions: []string{".json", ".pfw", ".cpuprofile"},
	Sniff:      looks,
	Options: []ingest.Option{{Name: "args", Kind: ingest.Bool, Default: false,
		Doc: "keep each slice's and event's args as JSON text (the args column of states and events); costs memory"},
		ingest.MaxDecompressedOption},
	Open: func(path string, v ingest.Values) (*ingest.Source, error) {
		keep, limit := v.Bool("args"), ingest.MaxDecompressed(v)
		// The reader parses the whole document before it delivers anything.
		return &ingest.Source{Read: func(sink trace.Sink, ro trace.ReadOptions) error {
			if t := trace.Held(sink); t != nil && keep {
				t.KeepArgs = true
			}
			return readLimited(path, limit, sink, ro)
		}, Whole: true, Files: []string{path}}, nil
	},
}

// looks reports whether the first bytes of a file look like JSON.
func looks(h []byte) bool {
	h = bytes.TrimLeft(h, " \t\r\n\ufeff")
	return len(h) > 0 && (h[0] == '{' || h[0] == '[')
}
