package speedscope

import (
	"bytes"
	"encoding/json"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Format is speedscope's file format, for the door (package ingest). Its
// .json extension is shared with Chrome's trace events: Sniff takes only
// files that name speedscope's schema, and the registry tries it first.
var Format = ingest.Format{
	Name:       "speedscope",
	Summary:    "speedscope JSON (py-spy --format speedscope, rbspy, Austin's austin2speedscope, pyinstrument, speedscope exports)",
	Extensions: []string{".speedscope.json", ".json"},
	Sniff:      Sniff,
	Options:    []ingest.Option{ingest.MaxDecompressedOption},
	Open: func(path string, v ingest.Values) (*ingest.Source, error) {
		limit := ingest.MaxDecompressed(v)
		// The reader parses the whole document before it delivers anything.
		return &ingest.Source{Read: func(sink trace.Sink, ro trace.ReadOptions) error {
			return readFile(path, limit, sink, ro)
		}, Whole: true, Files: []string{path}}, nil
	},
}

// schemaURL is the part of the "$schema" value every writer gives.
var schemaURL = []byte("speedscope.app/file-format-schema.json")

// Sniff reports whether head, a file's first bytes, starts a speedscope
// file: a JSON object whose top-level "$schema" names speedscope's
// schema. When the head ends before that key (a writer that puts its
// frames first), the schema's address in the head, without a
// traceEvents key before it, says so.
func Sniff(head []byte) bool {
	b := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		key, ok := tok.(string)
		if !ok || key == "traceEvents" {
			return false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		if key == "$schema" {
			var s string
			return json.Unmarshal(v, &s) == nil && bytes.Contains([]byte(s), schemaURL)
		}
	}
	// The head ended inside a value (or the object ended without the key).
	i := bytes.Index(b, schemaURL)
	return i > 0 && !bytes.Contains(b[:i], []byte(`"traceEvents"`)) && bytes.Contains(b[:i], []byte(`"$schema"`))
}
