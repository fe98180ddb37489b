package speedscope

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"

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
	Options: []ingest.Option{{Name: "count_unit", Kind: ingest.String, Default: "none",
		Doc: "the time one count lasts in a profile whose unit is \"none\" (rbspy's, and speedscope's importers of perf and collapsed stacks: a weight or an event time is a number of samples): the sampling interval, as a number and s, ms, us or ns (\"10ms\" for rbspy's 100 Hz); none refuses such profiles"},
		ingest.MaxDecompressedOption},
	Open: func(path string, v ingest.Values) (*ingest.Source, error) {
		limit := ingest.MaxDecompressed(v)
		count, err := countUnit(v.String("count_unit"))
		if err != nil {
			return nil, err
		}
		// The reader parses the whole document before it delivers anything.
		return &ingest.Source{Read: func(sink trace.Sink, ro trace.ReadOptions) error {
			return readFile(path, limit, count, sink, ro)
		}, Whole: true, Files: []string{path}}, nil
	},
}

// countUnit parses the count_unit option: "none" (0), or a positive
// duration such as "10ms", in nanoseconds.
func countUnit(s string) (float64, error) {
	if s == "none" || s == "" {
		return 0, nil
	}
	for _, u := range []string{"ns", "us", "ms", "s"} {
		num, ok := strings.CutSuffix(s, u)
		if !ok {
			continue
		}
		unit, _ := trace.TimeUnit(u)
		if num == "" {
			num = "1"
		}
		n, err := strconv.ParseFloat(num, 64)
		if err != nil || !(n > 0) || math.IsInf(n, 0) || n*float64(unit) > float64(trace.Second)*1e6 {
			break
		}
		return n * float64(unit), nil
	}
	return 0, errs.Argument("count_unit", "wants none or a duration such as 10ms (a number and s, ms, us or ns, at most a million seconds), not %q", s)
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
