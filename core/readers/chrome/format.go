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
	if what := hatchetLiteral(head); what != "" {
		return what
	}
	return executionTrace(head)
}

// hatchetLiteral says what a file whose first bytes are head is when it is
// a profile in Hatchet's literal form, which Triton's Proton writes by
// default (name.hatchet) and hatchet's to_literal too: an array of trees,
// each node an object {"children": [...], "frame": {"name": ...},
// "metrics": {...}}. Proton writes its keys sorted, so a node's children
// come before its frame: the walk goes down the first children to a node
// whose frame and metrics the head holds. "" for anything else.
func hatchetLiteral(head []byte) string {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimLeft(head, " \t\r\n\ufeff")))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return ""
	}
	// Each open object or array. keyNext tells that an object's next
	// token is a key, key is its last one; nodes tells that an array's
	// objects are nodes (the top array, a node's children), node that an
	// object is one.
	type level struct {
		object, keyNext, nodes, node bool
		key                          string
		keys                         map[string]bool
	}
	stack := []*level{{nodes: true}}
	const what = "a Hatchet profile (a tree of calling contexts with their metrics, as Triton's Proton writes " +
		"by default in name.hatchet), not a timeline: record a trace with proton.start(name, data=\"trace\"), " +
		"which writes name.chrome_trace, and read that"
	for {
		tok, err := dec.Token()
		if err != nil {
			// A deep tree, indented, may not reach its first leaf in
			// the head: nodes whose first key is children, one in the
			// other, from the first tree down, tell it too.
			if len(stack) < 5 {
				return ""
			}
			for _, l := range stack[1:] {
				if l.object && (!l.node || len(l.keys) != 1 || !l.keys["children"]) || !l.object && !l.nodes {
					return ""
				}
			}
			return what
		}
		top := stack[len(stack)-1]
		if key, ok := tok.(string); ok && top.object && top.keyNext {
			top.keys[key], top.key, top.keyNext = true, key, false
			if top.node && top.keys["frame"] && top.keys["metrics"] {
				return what
			}
			continue
		}
		switch tok {
		case json.Delim('{'):
			if len(stack) == 1 && len(top.keys) > 0 {
				return "" // the first tree holds no node with a frame and metrics
			}
			if len(stack) == 1 {
				top.keys = map[string]bool{"tree": true}
			}
			stack = append(stack, &level{object: true, keyNext: true, node: !top.object && top.nodes, keys: map[string]bool{}})
			continue
		case json.Delim('['):
			if len(stack) == 1 {
				return ""
			}
			stack = append(stack, &level{nodes: top.object && top.node && top.key == "children"})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return ""
			}
		default:
			if len(stack) == 1 {
				return "" // an array of scalars
			}
		}
		if top := stack[len(stack)-1]; top.object {
			top.keyNext = true
		}
	}
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
