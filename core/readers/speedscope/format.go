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
	Options: []ingest.Option{{Name: "count_unit", Kind: ingest.String, Default: "none", Choices: []string{"none", "s", "ms", "us", "ns"},
		Doc: "the time one count stands for in a profile whose unit is \"none\" (its weights or event times are counts, as speedscope's importers of perf and collapsed stacks write): the sampling interval, e.g. ms; none refuses such profiles"},
		ingest.MaxDecompressedOption},
	Open: func(path string, v ingest.Values) (*ingest.Source, error) {
		limit := ingest.MaxDecompressed(v)
		count, _ := trace.TimeUnit(v.String("count_unit"))
		// The reader parses the whole document before it delivers anything.
		return &ingest.Source{Read: func(sink trace.Sink, ro trace.ReadOptions) error {
			return readFile(path, limit, float64(count), sink, ro)
		}, Whole: true, Files: []string{path}}, nil
	},
}

// schemaURL is the part of the "$schema" value every writer gives.
var schemaURL = []byte("speedscope.app/file-format-schema.json")

// Sniff reports whether head, a file's first bytes, starts a speedscope
// file: a JSON object whose top-level "$schema" names speedscope's
// schema, or whose keys before it are speedscope's own (the frames'
// table, the profiles, which Chrome's JSON never has).
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
		// A writer that puts the frames or the profiles first may not
		// reach its "$schema" in the head: their own shapes tell.
		switch key {
		case "shared":
			return tokens(dec, json.Delim('{'), "frames", json.Delim('['))
		case "profiles":
			if !tokens(dec, json.Delim('['), json.Delim('{'), "type") {
				return false
			}
			tok, _ := dec.Token()
			return tok == "evented" || tok == "sampled"
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
	return false
}

// tokens reports whether dec's next tokens are want.
func tokens(dec *json.Decoder, want ...json.Token) bool {
	for _, w := range want {
		if tok, err := dec.Token(); err != nil || tok != w {
			return false
		}
	}
	return true
}
