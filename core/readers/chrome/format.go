package chrome

import (
	"bytes"
	"encoding/json"

	"github.com/macroscope-hpc/macroscope/core/errs"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Format is the Chrome trace-event format, for the door (package ingest).
var Format = ingest.Format{
	Name:       "chrome",
	Summary:    "Chrome/Perfetto trace-event JSON (Chrome, catapult, Perfetto, PyTorch Kineto, PerfFlowAspect)",
	Extensions: []string{".json", ".pfw", ".cpuprofile"},
	Sniff:      func(h []byte) bool { return looks(h) && typeDump(h) == "" },
	// A type dump (tsc's types.json) is JSON but no trace: looks says
	// no, and the door names it.
	ExplainFile: typeDump,
	Options: []ingest.Option{{Name: "args", Kind: ingest.Bool, Default: false,
		Doc: "keep each slice's and event's args as JSON text (the args column of states and events); costs memory"},
		ingest.MaxDecompressedOption},
	Open: func(path string, v ingest.Values) (*ingest.Source, error) {
		keep, limit := v.Bool("args"), ingest.MaxDecompressed(v)
		// The reader parses the whole document before it delivers anything.
		return &ingest.Source{Read: func(sink trace.Sink, ro trace.ReadOptions) error {
			// Named as chrome, a type dump is still no trace.
			if head, err := ingest.Head(path, typeDumpHead); err == nil {
				if what := typeDump(head); what != "" {
					return errs.Format(path, 0, "is %s", what)
				}
			}
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

// typeDumpHead is how many first bytes typeDump needs: its first entry is
// a few dozen bytes.
const typeDumpHead = 4 << 10

// typeDump says what a file whose first bytes are head is when it is
// TypeScript's dump of the program's types (types.json, which
// tsc --generateTrace writes beside its trace.json): an array of types,
// the first {"id":1,"intrinsicName":"any","recursionId":0,"flags":["Any"]}.
// "" for anything else.
func typeDump(head []byte) string {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimLeft(head, " \t\r\n\ufeff")))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return ""
	}
	var first map[string]json.RawMessage
	if dec.Decode(&first) != nil {
		return ""
	}
	_, id := first["id"]
	_, flags := first["flags"]
	_, recursion := first["recursionId"]
	_, ph := first["ph"]
	if !id || !flags || !recursion || ph {
		return ""
	}
	return "TypeScript's dump of the program's types (types.json, which tsc --generateTrace writes beside its trace), " +
		"not a trace: read the trace.json of the same directory"
}
