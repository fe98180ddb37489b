package chrome

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/errs"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Format is the Chrome trace-event format, for the door (package ingest).
var Format = ingest.Format{
	Name:       "chrome",
	Summary:    "Chrome/Perfetto trace-event JSON (Chrome, catapult, Perfetto, PyTorch Kineto, PerfFlowAspect)",
	Extensions: []string{".json", ".pfw", ".cpuprofile"},
	Sniff:      func(h []byte) bool { return looks(h) && notATrace(h) == "" },
	// A type dump (tsc's types.json) or a PyTorch execution trace is JSON
	// but no trace: Sniff says no, and the door names it.
	ExplainFile: notATrace,
	Options: []ingest.Option{{Name: "args", Kind: ingest.Bool, Default: false,
		Doc: "keep each slice's and event's args as JSON text (the args column of states and events); costs memory"},
		ingest.MaxDecompressedOption},
	Open: func(path string, v ingest.Values) (*ingest.Source, error) {
		keep, limit := v.Bool("args"), ingest.MaxDecompressed(v)
		// The reader parses the whole document before it delivers anything.
		return &ingest.Source{Read: func(sink trace.Sink, ro trace.ReadOptions) error {
			// Named as chrome, a type dump is still no trace.
			if head, err := ingest.Head(path, typeDumpHead); err == nil {
				if what := notATrace(head); what != "" {
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

// typeDumpHead is how many first bytes notATrace needs: a type dump's
// first entry is a few dozen bytes, an execution trace's header keys
// about a hundred.
const typeDumpHead = 4 << 10

// notATrace says what a JSON file whose first bytes are head is, with the
// way to the trace, when a producer of traces wrote it but it holds none:
// "" for anything else.
func notATrace(head []byte) string {
	if what := typeDump(head); what != "" {
		return what
	}
	if what := caliperRecords(head); what != "" {
		return what
	}
	return executionTrace(head)
}

// caliperRecords says what a file is when it is in Caliper's own record
// format (.cali: text lines "__rec=node,id=...,attr=...,data=..." then
// "__rec=ctx,..."), a profile (runtime-report, spot) or an event trace
// (event-trace) that Caliper's cali2traceevent turns into the trace-event
// JSON read here. "" otherwise.
func caliperRecords(head []byte) string {
	if !bytes.HasPrefix(head, []byte("__rec=")) {
		return ""
	}
	return "a Caliper .cali file (Caliper's own records: a profile of runtime-report or spot, or an event trace of event-trace), " +
		"which Macroscope does not read: convert an event trace to trace-event JSON with Caliper's cali2traceevent " +
		"(cali2traceevent.py run.cali trace.json) and read that; a profile holds no timeline"
}

// executionTrace says what a file whose first bytes are head is when it is
// a PyTorch execution trace (torch.profiler.ExecutionTraceObserver, the
// input of Chakra and PARAM's et_replay): an object whose keys are
// "schema" ("1.0.1", "1.0.3-chakra.0.0.4", "1.1.1-chakra.0.0.4"...), "pid",
// "time", "start_ts", then "nodes", the operators as a graph (ids, parents,
// inputs, outputs, attributes), without a time or a duration each. ""
// for anything else: a trace-event object has "traceEvents" and Kineto's
// "schemaVersion", not "schema".
func executionTrace(head []byte) string {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimLeft(head, " \t\r\n\ufeff")))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	schema, seen := "", map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return ""
		}
		seen[key] = true
		if key == "traceEvents" {
			return ""
		}
		if key == "nodes" {
			if tok, err := dec.Token(); err != nil || tok != json.Delim('[') || schema == "" ||
				!(seen["pid"] || seen["start_ts"]) {
				return ""
			}
			return "a PyTorch execution trace (ExecutionTraceObserver, schema " + strconv.Quote(schema) +
				"): a graph of operators without times, not a timeline: read the trace torch.profiler " +
				"(Kineto) wrote in the same run (.pt.trace.json), which has the times of the same operators"
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return ""
		}
		if key == "schema" && json.Unmarshal(v, &schema) != nil {
			return ""
		}
	}
	return ""
}

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
