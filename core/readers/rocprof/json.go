package rocprof

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The JSON output of rocprofv3 (--output-format json) is one object whose
// key "rocprofiler-sdk-tool" holds one element per profiled process: its
// metadata (host, pid), agents, string tables (the names of the kinds and
// operations of records, the messages of roctx markers), kernel symbols,
// and buffer_records, one list per kind of record. Records refer to
// kinds, operations, agents and kernels by number. rocprofv3 writes the
// tables first: the records are then added to the model as they are
// decoded. Should the tables come after the records, the records wait,
// decoded, until the end of their element.

// sniffJSON reports whether head starts a rocprofv3 JSON file: an object
// whose first key is "rocprofiler-sdk-tool" (a trace-event JSON file,
// which rocprofv3 can also write, starts with traceEvents or an array).
func sniffJSON(head []byte) bool {
	b := bytes.TrimLeft(head, " \t\r\n")
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	b = bytes.TrimLeft(b[1:], " \t\r\n")
	return bytes.HasPrefix(b, []byte(`"rocprofiler-sdk-tool"`))
}

type jsonHandle struct {
	Handle uint64 `json:"handle"`
}

type jsonAgent struct {
	ID          jsonHandle `json:"id"`
	Type        int        `json:"type"` // 1 CPU, 2 GPU
	NodeID      int64      `json:"node_id"`
	Name        string     `json:"name"`
	ProductName string     `json:"product_name"`
}

type jsonKindNames struct {
	Kind       string   `json:"kind"`
	Operations []string `json:"operations"`
}

type jsonStrings struct {
	BufferRecords []jsonKindNames `json:"buffer_records"`
	MarkerAPI     []struct {
		Key   int64  `json:"key"`
		Value string `json:"value"`
	} `json:"marker_api"`
}

type jsonSymbol struct {
	KernelID      int64  `json:"kernel_id"`
	KernelName    string `json:"kernel_name"`
	FormattedName string `json:"formatted_kernel_name"`
}

type jsonMetadata struct {
	Node struct {
		Hostname string `json:"hostname"`
	} `json:"node"`
	PID int64 `json:"pid"`
}

// jsonRecord holds the fields of every kind of buffer record read.
type jsonRecord struct {
	Kind        int32 `json:"kind"`
	Operation   int32 `json:"operation"`
	ThreadID    int64 `json:"thread_id"`
	Correlation struct {
		Internal int64 `json:"internal"`
	} `json:"correlation_id"`
	Start    int64 `json:"start_timestamp"`
	End      int64 `json:"end_timestamp"`
	Dispatch struct {
		Agent    jsonHandle `json:"agent_id"`
		Queue    jsonHandle `json:"queue_id"`
		KernelID int64      `json:"kernel_id"`
	} `json:"dispatch_info"`
	Src   jsonHandle `json:"src_agent_id"`
	Dst   jsonHandle `json:"dst_agent_id"`
	Bytes *int64     `json:"bytes"`
}

// pending is a record waiting for its element's tables.
type pending struct {
	list int8 // listKernel, listCopy, listAPI
	r    jsonRecord
}

const (
	listKernel int8 = iota
	listCopy
	listAPI
)

// recordLists tells what each list of buffer_records holds; lists not
// named are counted as skipped.
var recordLists = map[string]int8{
	"kernel_dispatch": listKernel,
	"memory_copy":     listCopy,
	"hip_api":         listAPI,
	"hsa_api":         listAPI,
	"marker_api":      listAPI,
	"rccl_api":        listAPI,
	"rocdecode_api":   listAPI,
	"rocjpeg_api":     listAPI,
	"ompt":            listAPI,
}

// jsonElement is what one element of rocprofiler-sdk-tool holds.
type jsonElement struct {
	meta    jsonMetadata
	agents  []jsonAgent
	strs    jsonStrings
	symbols map[int64]string
	recs    []pending // records waiting for tables that come after them
	res     *resolver // once the tables are read
}

// jsonReader walks the token stream.
type jsonReader struct {
	path  string
	dec   *json.Decoder
	in    *ingest.Counter
	opt   trace.ReadOptions
	total int64
	n     int // records decoded, for cancellation checks
	m     *model
	elems int32 // elements of rocprofiler-sdk-tool begun
}

// readJSONFile reads a rocprofv3 JSON file (plain or compressed) into sink.
func readJSONFile(path string, sink trace.Sink, opt trace.ReadOptions) error {
	st, err := ingest.CheckPath(path)
	if err != nil {
		return err
	}
	f, err := ingest.OpenFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	counted := &ingest.Counter{R: f}
	in, release, err := ingest.Decompress(bufio.NewReaderSize(counted, 1<<16), path, ingest.DefaultMaxDecompressed)
	if err != nil {
		return err
	}
	defer release()
	return readJSON(path, ingest.ReadToCut(in, opt), counted, st.Size(), sink, opt)
}

// maxValue bounds what the JSON decoder may buffer past the last token it
// returned: one value (a name, a record) of a few kilobytes, or the
// tables of strings and agents of a few megabytes. A string of gigabytes
// (a decompression bomb's) stops the read instead of filling the memory.
const maxValue = 256 << 20

// valueGuard feeds the JSON decoder, refusing to give it more once it
// holds maxValue bytes past its last token.
type valueGuard struct {
	r   io.Reader
	dec *json.Decoder
	n   int64 // bytes given to the decoder
	// opt.Hold is told of a value past weighFrom that the decoder
	// buffers, as twice its size (the buffer grows by doubling, the old
	// one alive during the copy); weighed is what it was told.
	opt     trace.ReadOptions
	weighed int64
}

// weighFrom is the size of a pending value from which it weighs against
// the read's budget: real values are kilobytes, the tables of strings a
// few megabytes.
const weighFrom = 1 << 20

func (g *valueGuard) Read(p []byte) (int, error) {
	pending := g.n - g.dec.InputOffset()
	if pending > maxValue {
		return 0, fmt.Errorf("a value runs past %d MiB (%d bytes from byte %d) without its end: more than a trace's value may hold",
			maxValue>>20, pending, g.dec.InputOffset())
	}
	want := int64(0)
	if pending >= weighFrom {
		want = 2 * pending
	}
	if delta := want - g.weighed; delta != 0 {
		err := g.opt.Held(delta)
		g.weighed = want
		if err != nil {
			return 0, err
		}
	}
	n, err := g.r.Read(p)
	g.n += int64(n)
	return n, err
}

func readJSON(path string, in io.Reader, counted *ingest.Counter, total int64, sink trace.Sink, opt trace.ReadOptions) error {
	guard := &valueGuard{r: in, opt: opt}
	defer func() { opt.Held(-guard.weighed) }()
	dec := json.NewDecoder(guard)
	guard.dec = dec
	dec.UseNumber()
	r := &jsonReader{path: path, dec: dec, in: counted, opt: opt, total: total, m: newModel(opt)}
	defer r.m.release() // a read that stops early gives back what the model held
	if err := r.document(); err != nil {
		return r.wrap(err)
	}
	if opt.Progress != nil {
		opt.Progress(counted.N(), total)
	}
	return r.m.emit(sink, path)
}

// wrap turns decoding errors into FormatErrors placed in the decompressed
// text.
func (r *jsonReader) wrap(err error) error {
	off := r.dec.InputOffset()
	var fe *errs.FormatError
	if errors.As(err, &fe) {
		if fe.Offset == 0 && fe.Line == 0 && off > 0 {
			// The decompressor failed: say how far the text went.
			return &errs.FormatError{File: fe.File, AtOffset: true, Offset: off, Err: fe.Err}
		}
		return err
	}
	if errors.Is(err, trace.ErrCanceled) {
		return err
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		err = errors.New("the JSON text ends early (truncated file?)")
	}
	if off == 0 {
		off = 1 // byte 0 would read as "unknown"
	}
	return &errs.FormatError{File: r.path, AtOffset: true, Offset: off, Err: err}
}

func (r *jsonReader) delim(want json.Delim) error {
	t, err := r.dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return fmt.Errorf("expected %q, found %v", want, t)
	}
	return nil
}

// key returns the next key of an object, or ok false at its end.
func (r *jsonReader) key() (string, bool, error) {
	if !r.dec.More() {
		_, err := r.dec.Token() // the closing brace
		return "", false, err
	}
	t, err := r.dec.Token()
	if err != nil {
		return "", false, err
	}
	k, ok := t.(string)
	if !ok {
		return "", false, fmt.Errorf("expected an object key, found %v", t)
	}
	return k, true, nil
}

func (r *jsonReader) skip() error {
	var raw json.RawMessage
	return r.dec.Decode(&raw)
}

// tick counts a record and now and then reports progress and checks
// cancellation.
func (r *jsonReader) tick() error {
	if r.m.err != nil {
		// The budget refused the model: wrap places it at this record.
		return r.m.err
	}
	r.n++
	if r.n%4096 != 0 {
		return nil
	}
	if err := r.opt.Canceled(); err != nil {
		return err
	}
	if r.opt.Progress != nil {
		r.opt.Progress(r.in.N(), r.total)
	}
	return nil
}

func (r *jsonReader) document() error {
	if err := r.delim('{'); err != nil {
		return err
	}
	found := false
	for {
		k, ok, err := r.key()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if k != "rocprofiler-sdk-tool" {
			if err := r.skip(); err != nil {
				return err
			}
			continue
		}
		found = true
		if err := r.delim('['); err != nil {
			return err
		}
		for r.dec.More() {
			if err := r.element(); err != nil {
				return err
			}
		}
		if err := r.delim(']'); err != nil {
			return err
		}
	}
	if !found {
		return errors.New(`no "rocprofiler-sdk-tool" key: not a rocprofv3 JSON file`)
	}
	if _, err := r.dec.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("text after the JSON object")
		}
		return err
	}
	return nil
}

// element reads one process's output and adds its records to the model.
func (r *jsonReader) element() error {
	if err := r.delim('{'); err != nil {
		return err
	}
	e := &jsonElement{symbols: map[int64]string{}}
	seen := map[string]bool{}
	// Correlation ids are the process's: each element is its own scope.
	r.elems++
	r.m.scope = r.elems
	for {
		k, ok, err := r.key()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch k {
		case "metadata":
			err = r.dec.Decode(&e.meta)
		case "agents":
			err = r.dec.Decode(&e.agents)
		case "strings":
			err = r.dec.Decode(&e.strs)
		case "kernel_symbols":
			var syms []jsonSymbol
			if err = r.dec.Decode(&syms); err == nil {
				for _, s := range syms {
					name := s.FormattedName
					if name == "" {
						name = s.KernelName
					}
					e.symbols[s.KernelID] = name
				}
			}
		case "buffer_records":
			// rocprofv3 writes the tables first: the records are then
			// added as they come, without waiting for the element's end.
			if seen["metadata"] && seen["agents"] && seen["strings"] && seen["kernel_symbols"] && e.res == nil {
				e.res = newResolver(r.m, e)
			}
			err = r.bufferRecords(e)
		case "callback_records":
			err = r.countLists("callback records of kind %q")
		default:
			err = r.skip()
		}
		if err != nil {
			return err
		}
		seen[k] = true
	}
	if e.res == nil {
		e.res = newResolver(r.m, e)
	}
	for i := range e.recs {
		e.res.add(e.recs[i].list, &e.recs[i].r)
	}
	e.res.done(r.opt)
	return nil
}

// bufferRecords streams the lists of buffer_records.
func (r *jsonReader) bufferRecords(e *jsonElement) error {
	if err := r.delim('{'); err != nil {
		return err
	}
	for {
		k, ok, err := r.key()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		list, known := recordLists[k]
		if err := r.delim('['); err != nil {
			return err
		}
		var skipped int64
		for r.dec.More() {
			if !known {
				if err := r.skip(); err != nil {
					return err
				}
				skipped++
			} else {
				var rec jsonRecord
				if err := r.dec.Decode(&rec); err != nil {
					return err
				}
				if e.res != nil {
					e.res.add(list, &rec)
				} else {
					e.recs = append(e.recs, pending{list: list, r: rec})
				}
			}
			if err := r.tick(); err != nil {
				return err
			}
		}
		if err := r.delim(']'); err != nil {
			return err
		}
		r.opt.Skip(fmt.Sprintf("buffer records of kind %s (not modelled)", errs.Quote(k)), skipped)
	}
}

// countLists skips an object of lists, counting their elements.
func (r *jsonReader) countLists(what string) error {
	if err := r.delim('{'); err != nil {
		return err
	}
	for {
		k, ok, err := r.key()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		var list []json.RawMessage
		if err := r.dec.Decode(&list); err != nil {
			return err
		}
		r.opt.Skip(fmt.Sprintf(what, k)+" (not modelled)", int64(len(list)))
	}
}

// resolver names the records of an element with its tables and adds them
// to the model.
type resolver struct {
	m        *model
	e        *jsonElement
	host     int32
	agents   map[uint64]*jsonAgent
	markers  map[int64]string
	reversed int64 // records ending before they start
	unnamed  int64 // API records whose kind is not in the tables
}

func newResolver(m *model, e *jsonElement) *resolver {
	v := &resolver{m: m, e: e, host: m.host(e.meta.Node.Hostname),
		agents: map[uint64]*jsonAgent{}, markers: map[int64]string{}}
	for i := range e.agents {
		v.agents[e.agents[i].ID.Handle] = &e.agents[i]
	}
	for _, kv := range e.strs.MarkerAPI {
		v.markers[kv.Key] = kv.Value
	}
	return v
}

// agent returns the container of the agent of handle h, named "Agent
// <node id> (<product>)" as rocprofv3 numbers agents in its CSV files.
func (v *resolver) agent(h uint64) int32 {
	a, ok := v.agents[h]
	if !ok {
		return v.m.agent(v.host, "handle "+strconv.FormatUint(h, 10), 1<<62, "Agent handle "+strconv.FormatUint(h, 10))
	}
	key := strconv.FormatInt(a.NodeID, 10)
	name := "Agent " + key
	if a.ProductName != "" {
		name += " (" + a.ProductName + ")"
	} else if a.Name != "" {
		name += " (" + a.Name + ")"
	}
	return v.m.agent(v.host, key, a.NodeID, name)
}

func (v *resolver) kindName(k int32) (string, bool) {
	if k < 0 || int(k) >= len(v.e.strs.BufferRecords) {
		return "", false
	}
	return v.e.strs.BufferRecords[k].Kind, true
}

func (v *resolver) opName(k, op int32) string {
	if k >= 0 && int(k) < len(v.e.strs.BufferRecords) {
		ops := v.e.strs.BufferRecords[k].Operations
		if op >= 0 && int(op) < len(ops) {
			return ops[op]
		}
	}
	return "operation " + strconv.Itoa(int(op))
}

// add adds one record of list to the model.
func (v *resolver) add(list int8, rec *jsonRecord) {
	m := v.m
	if rec.End < rec.Start {
		v.reversed++
		return
	}
	start, end, corr := trace.Time(rec.Start), trace.Time(rec.End), rec.Correlation.Internal
	switch list {
	case listKernel:
		q := rec.Dispatch.Queue.Handle
		c := m.queue(v.agent(rec.Dispatch.Agent.Handle), "Queue "+strconv.FormatUint(q, 10), int64(q))
		name, ok := v.e.symbols[rec.Dispatch.KernelID]
		if !ok {
			name = "kernel " + strconv.FormatInt(rec.Dispatch.KernelID, 10)
		}
		m.add(c, kindKernel, name, start, end, corr, nan)
	case listCopy:
		// The device end: the destination when the source is a CPU.
		dev := rec.Src.Handle
		if a, ok := v.agents[dev]; ok && a.Type == 1 {
			dev = rec.Dst.Handle
		}
		c := m.queue(v.agent(dev), "Memory copies", 1<<62)
		size := nan
		if rec.Bytes != nil {
			size = float64(*rec.Bytes)
		}
		m.add(c, kindCopy, v.opName(rec.Kind, rec.Operation), start, end, corr, size)
	case listAPI:
		domain, ok := v.kindName(rec.Kind)
		if !ok {
			v.unnamed++
			return
		}
		kind := apiKind(domain)
		name := v.opName(rec.Kind, rec.Operation)
		if kind == kindMarker {
			if msg, ok := v.markers[corr]; ok {
				name = msg
			}
		}
		c := m.thread(v.host, v.e.meta.PID, rec.ThreadID)
		if kind == kindMarker && start == end {
			m.addMark(c, name, start)
			return
		}
		m.add(c, kind, name, start, end, corr, nan)
	}
}

// done reports what the element's records lacked.
func (v *resolver) done(opt trace.ReadOptions) {
	opt.Skip("records ending before they start", v.reversed)
	opt.Skip("API records whose kind is not in the string tables", v.unnamed)
}
