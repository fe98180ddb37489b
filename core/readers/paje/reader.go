// Package paje reads traces in the Pajé format (the text format of PajeNG,
// SimGrid, StarPU and Akypuera) and streams them into a trace.Sink with the
// semantics of PajeNG 1.3.6, the reference implementation:
//
//   - types and containers are referred to by their identifier: the alias
//     when the definition gave one, the name otherwise;
//   - a value not defined by PajeDefineEntityValue is defined on first use;
//   - time may go backwards between containers, but not within the entities
//     of one type in one container;
//   - SetVariable, AddVariable and SubVariable at the instant of the previous
//     change of the same variable update that change instead of making a
//     piece of zero length;
//   - destroying a container destroys its descendants; events addressed to a
//     destroyed container are ignored;
//   - the trace ends at the date of its last timed event, where every
//     container still alive is destroyed.
//
// Beyond PajeNG, the reader accepts the field names of the original Pajé
// dialect unless Options.Strict, and, unless Options.StrictPajeNG, two
// habits of SimGrid traces written before 2012: DestroyContainer events that
// name the container in a Container field, and containers named "0" like
// the root (a reference to "0" then means the root or that container,
// whichever has the type the event expects); and one of SMPI's with
// tracing/smpi/group: a link end whose container is of another container
// type of the same name as the link type's end (counted in a warning);
// and SMPI's topology links with tracing/smpi/display-sizes, which lack the
// Size field their definition ends with: missing trailing user fields are
// empty (counted in a warning); and NGSolve's ngcore, which creates its
// threads in a "Node" while their type's parent is the "Task Manager"
// above it: a container may be created below a container of a type its
// own type's parent contains (counted in a warning).
//
// User fields are not modelled, but for one: a numeric field named Size
// in PajeStartLink or PajeEndLink (SMPI's tracing/smpi/display-sizes writes
// the message's bytes there) gives the link's Size; without it Size is NaN.
//
// Dates are seconds, as PajeNG and SimGrid write them, unless
// Options.TimeUnit says otherwise; the door (Format, option time_unit)
// reads StarPU's and NGSolve's traces, whose dates are milliseconds, in
// milliseconds (see unit.go).
//
// The reader is a pipeline (see pipeline.go): chunks of lines are split
// into fields and dates on every core while the simulation consumes them
// in file order; lines the fast path does not take, and every error, go
// through the line-by-line decoder, so results, errors and line numbers
// do not depend on the chunking.
//
// Where the time goes, and how it is kept short (read of the 124 MB
// synthetic trace into a sink that counts, 2 cores): splitting lines into
// fields, a third of the CPU time, is done on a chunk's bitmaps (scan.go):
// an AVX2 kernel classifies 64 bytes at a time into spaces and odd bytes
// (the '\n', quotes, '#', tabs and controls, non-ASCII), and bitFields
// walks a line's fields a 64-bit word at a time (where there is no AVX2, or
// under the purego tag, plainFields reads eight bytes at a time; tests and
// FuzzClassify compare the kernel with the generic classification, and
// bitFields with plainFields at every alignment). Dates of nine decimals
// are read eight digits at once (eightDigits), exactly, others through
// trace.ParseTime. The tokenizers hash the identifiers a record looks up,
// and write sixteen bytes a field (a quoted field is told by the '"'
// before it). The simulation, half of the time, looks identifiers up in
// open-addressing tables by those hashes, without a string; SetState,
// PushState and PopState take one function (plainState) when nothing is
// unusual, the general path otherwise (the tests' line-by-line reads use
// the general path only, and compare); what a state event reads of a slot
// is in its first 64 bytes, and a container remembers the slot of its last
// event; a container's first slot is part of it, laid out so that a state
// event reads the container in one cache line and the slot in the next.
// Id-table slots are 16 bytes, the keys apart. A state event whose ids
// are short (at most seven bytes) is one record of 48 bytes with their
// words, its fields not kept (keyed records: the line is split again in
// the rare case plainState does not take it): about 4% less CPU time for
// the read into a counting sink (none measurable into the micro model) and
// 13% less peak memory. Most lines are such state events, and
// stateLines takes a run of them in one loop, with no call for a line: it
// finds a line's fields in one 64-bit window of the bitmaps (a line of
// at most 64 bytes), reads the keys and the date from there, keeps the
// last definition by its one-byte id, and writes the record in place a
// word at a time (a record built on the stack was copied sixteen bytes at
// a time, loads that waited for the eight-byte stores that built it: a
// stall on every line); the tokenizers then take about 60% of the CPU
// time they did (TestStateLinesAsPlainLine and FuzzStateLines compare it
// with plainLine). BenchmarkTokenize and BenchmarkSimulate measure the two
// halves alone, on one goroutine (CPU time: about 900 and 1000 MB/s per
// core on the synthetic trace, 1.1 and 1.0 ns a byte); the read of the
// 150 MB trace spends about 55% of its CPU time tokenizing, 40%
// simulating, and, since a plain file of 1 MiB or more is mapped and its
// chunks are slices of the page cache (mapped.go), nothing in the read(2)
// that copied it into the chunks (5-10%). In stateLines the offsets of
// the fields after the event id are packed and counted in one loop, and
// its shifts are masked to 63 (a shift the compiler cannot bound costs
// three instructions more): with stateKey's one word, badKey when it
// cannot read a key, 7% fewer instructions than before. What remains
// of the simulation is mostly the lookup of the container: its line of
// the table is rarely in the cache. Measured and not kept (the
// CPU time the same or worse): prefetching (PREFETCHT0 eight records
// ahead, of the table's line or of the container) and a warming pass;
// records that carry their ids resolved by the tokenizers from snapshots
// of the tables (the lookups cost them what they cost the simulation, and
// the total is what counts on a machine whose cores are all busy; so did
// resolving them eight lines late, the table's line prefetched); tables
// at three quarters full (longer probes); a word's field starts stored
// without append's capacity check, chunks of 32, 64, 128 or 512 KiB,
// records with the hashes beside the fields; records of 64 bytes rather
// than 48 cost nothing measurable, so smaller ones would save little.
//
// Input may be compressed (gzip, bzip2, zstd: see ingest.Decompress). A
// trace not sorted by time is read with Options.Sort, through an external
// sort of its lines by date (see sort.go).
package paje

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Options tune the reader beyond trace.ReadOptions. The zero value reads
// every trace PajeNG reads, with exact values.
type Options struct {
	trace.ReadOptions
	// Strict rejects the field names of the original Pajé dialect
	// (ContainerType, EntityType...), as pj_dump does without --no-strict.
	Strict bool
	// SinglePrecision rounds variable values to float32 before use, as
	// PajeNG does; sums of AddVariable and SubVariable are then those of
	// pj_dump to the last bit. Values beyond float32 become infinite.
	SinglePrecision bool
	// NoImbrication flattens nested states, as pj_dump --no-imbrication:
	// PushState ends the state it covers and PopState starts it again.
	NoImbrication bool
	// StrictPajeNG refuses what PajeNG 1.3.6 refuses although the reader
	// can make sense of it: AddVariable and SubVariable on a variable that
	// has no value yet (otherwise it starts from 0, as in PajeNG's
	// development version), a DestroyContainer that names its container in a
	// Container field, and containers whose identifier is "0" (the root's);
	// SimGrid wrote the last three before 2012.
	StrictPajeNG bool
	// TimeUnit is the unit of the trace's dates, in nanoseconds: 0 (or
	// trace.Second) reads them as seconds, Pajé's usual unit; StarPU
	// writes milliseconds (trace.Second / 1000). It must divide a second.
	TimeUnit trace.Time
	// IgnoreIncompleteLinks drops the links that never get both ends
	// instead of failing, as pj_dump --ignore-incomplete-links.
	IgnoreIncompleteLinks bool
	// MaxDecompressed bounds what a compressed file (gzip, bzip2, zstd)
	// may expand to: 0 means ingest.DefaultMaxDecompressed, a negative
	// value no limit.
	MaxDecompressed int64
	// Sort reads a trace that is not sorted by time (StarPU's FxT
	// conversions before starpu_paje_sort) by sorting its event lines by
	// date first, stably, in runs of SortRun bytes (0: DefaultSortRun)
	// written to temporary files and merged (see sort.go). Runs are kept
	// in memory instead as long as those kept total at most SortMemory
	// bytes (0: DefaultSortMemory, negative: every run goes to disk).
	Sort       bool
	SortRun    int64
	SortMemory int64
}

// PajeNG returns the options under which the reader behaves as pj_dump
// with default arguments.
func PajeNG() Options { return Options{Strict: true, SinglePrecision: true, StrictPajeNG: true} }

// readFile reads a whole Pajé trace into memory.
func readFile(path string) (*trace.Trace, error) {
	t := trace.New(path)
	if err := read(path, t, trace.ReadOptions{}); err != nil {
		return nil, err
	}
	return t, nil
}

// read streams the Pajé trace at path into sink.
func read(path string, sink trace.Sink, opt trace.ReadOptions) error {
	return readFiles([]string{path}, sink, Options{ReadOptions: opt})
}

// readFiles streams several files into sink as one trace, as if they were
// concatenated: a file may use the definitions, types and containers of the
// files before it (a header file followed by per-process event files, for
// instance). Errors name the file and line where they occur. With
// opt.Sort, the files are read as one trace whose lines are sorted by
// date first.
func readFiles(paths []string, sink trace.Sink, opt Options) error {
	if opt.Sort {
		return readSorted(paths, sink, opt)
	}
	var total int64
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil {
			total += st.Size()
		}
	}
	d := newDecoder(sink, opt, total)
	defer d.sim.release()
	for _, p := range paths {
		f, err := ingest.OpenFile(p)
		if err != nil {
			return err
		}
		err = d.decodeFile(f, p)
		f.Close()
		if err != nil {
			return err
		}
	}
	return d.finish()
}

// Decode reads a Pajé trace from r into sink, with the reader's options
// (PajeNG's for pj_dump's semantics); name labels errors, total is the
// input size for progress reports (0 if unknown). Files are read through
// the door (Format), which also takes several files as one trace.
func Decode(r io.Reader, name string, total int64, sink trace.Sink, opt Options) error {
	d := newDecoder(sink, opt, total)
	defer d.sim.release()
	if err := d.decode(r, name); err != nil {
		return err
	}
	return d.finish()
}

// progressEvery is how many bytes pass between two progress reports and
// two looks at ReadOptions.Cancel.
const progressEvery = 1 << 20

type decoder struct {
	fields []span // a keyed record's fields, split again
	opt    Options
	file   string
	line   int
	defs   map[string]*eventDef // by event id
	open   *eventDef            // definition being read
	spans  []span               // the fields of the line being read
	sim    *simulator

	// done counts the bytes of (decompressed) text read; input counts
	// those of the files, compressed or not, for progress reports, before
	// the bytes of the files read before the current one.
	total, done, nextReport int64
	input                   *ingest.Counter
	before                  int64
	long                    []byte

	// tables is the snapshot of defs and open the tokenizers work with.
	tables atomic.Pointer[defTable]
	// serial reads line by line, without the pipeline (for tests), and
	// chunkSize, if positive, replaces defaultChunk.
	serial    bool
	chunkSize int
}

func newDecoder(sink trace.Sink, opt Options, total int64) *decoder {
	d := &decoder{opt: opt, defs: map[string]*eventDef{}, sim: newSimulator(sink, opt), total: total}
	d.publish()
	return d
}

// publish makes the current definitions those the tokenizers use.
func (d *decoder) publish() {
	t := &defTable{ids: newIDTable(), open: d.open != nil}
	for id, def := range d.defs {
		t.ids.put(id, int32(len(t.defs)))
		t.defs = append(t.defs, def)
		if len(id) == 1 {
			t.byChar[id[0]] = def
		}
	}
	d.tables.Store(t)
}

// decodeLines reads r line by line, without the pipeline: the reference
// the pipeline must agree with, and what it falls back on.
func (d *decoder) decodeLines(r io.Reader) error {
	br := bufio.NewReaderSize(r, 1<<20)
	// What the long lines' buffer weighs against the read's memory
	// budget (trace.ReadOptions.Hold), told before it grows.
	var weighed int64
	defer func() { d.opt.Held(-weighed) }()
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: collect it whole.
			d.long = append(d.long[:0], line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				if need := len(d.long) + len(line); need > cap(d.long) && d.opt.Hold != nil {
					// The old buffer is alive during the copy: both weigh.
					n := max(2*cap(d.long), need)
					if herr := d.opt.Held(int64(n)); herr != nil {
						d.opt.Held(-int64(n))
						// Where the read outgrew the budget, for the
						// front end to say (budget.Named).
						d.line++
						return d.fail(herr)
					}
					bigger := make([]byte, len(d.long), n)
					copy(bigger, d.long)
					d.opt.Held(-weighed)
					d.long, weighed = bigger, int64(n)
				}
				d.long = append(d.long, line...)
				if len(d.long) > maxLine {
					d.line++
					return d.fail(errLongLine)
				}
			}
			line = d.long
		}
		if len(line) > 0 {
			if perr := d.lineRead(line); perr != nil {
				return perr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return d.readFailure(err)
		}
	}
	return d.endOfInput()
}

// lineRead parses one line, '\n' included if it has one.
func (d *decoder) lineRead(line []byte) error {
	d.done += int64(len(line))
	d.line++
	if err := d.parseLine(line); err != nil {
		return err
	}
	return d.report()
}

// report calls ReadOptions.Progress and looks at ReadOptions.Cancel when
// progressEvery bytes have passed since it last did.
func (d *decoder) report() error {
	if d.done >= d.nextReport {
		if err := d.opt.Canceled(); err != nil {
			return err
		}
		if d.opt.Progress != nil {
			d.opt.Progress(d.inputDone(), d.total)
		}
		d.nextReport = d.done + progressEvery
	}
	return nil
}

// endOfInput checks that the input did not stop inside a definition.
func (d *decoder) endOfInput() error {
	if d.open != nil {
		return errs.Format(d.file, d.open.line, "%%EventDef %s is never closed by %%EndEventDef", d.open.name)
	}
	return nil
}

func (d *decoder) finish() error {
	if len(d.defs) == 0 {
		return errs.Format(d.file, d.line, "not a Pajé trace: no %%EventDef")
	}
	if err := d.sim.finish(); err != nil {
		return err
	}
	if d.opt.Progress != nil {
		d.opt.Progress(d.inputDone(), d.total)
	}
	return nil
}

// inputDone is how many input bytes were consumed, compressed ones for
// compressed files.
func (d *decoder) inputDone() int64 {
	if d.input == nil { // lines passed on by the sort
		if d.total > 0 {
			return min(d.before+d.done, d.total)
		}
		return d.before + d.done
	}
	return d.before + d.input.N()
}

// readFailure places an error of the input at the current line: the
// decompressor's errors already name the file.
// maxLine bounds the length of a line. Pajé lines are a few dozen bytes; a
// line without end past this is not a trace (a file of zeros, a damaged
// or compressed file read as text), and collecting it whole would take
// the memory of the machine.
const maxLine = 256 << 20

var errLongLine = errors.New("a line longer than 256 MiB without an end of line: not a Pajé trace, or a damaged one")

func (d *decoder) readFailure(err error) error {
	var fe *errs.FormatError
	if errors.As(err, &fe) {
		err = fe.Err
	}
	return &errs.FormatError{File: d.file, Line: d.line, AtOffset: true, Offset: d.done, Err: err}
}

func (d *decoder) fail(err error) error {
	return &errs.FormatError{File: d.file, Line: d.line, Err: err}
}

func (d *decoder) failf(format string, args ...any) error {
	return errs.Format(d.file, d.line, format, args...)
}

func (d *decoder) parseLine(line []byte) error {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	i := 0
	for i < len(line) && blank[line[i]] {
		i++
	}
	if i == len(line) || line[i] == '#' {
		return nil
	}
	if !utf8.Valid(line) {
		return d.failf("line is not valid UTF-8")
	}
	if line[i] == '%' {
		return d.parseHeader(line[i+1:])
	}
	if d.open != nil {
		return d.failf("event line inside the definition of %s, before %%EndEventDef", d.open.name)
	}
	if uint64(len(line)) > maxBuffer {
		return d.failf("line of %d bytes, more than the %d the reader takes", len(line), uint64(maxBuffer))
	}
	var err error
	d.spans, err = appendFields(line, i, len(line), d.spans[:0])
	if err != nil {
		return d.failf("%v", err)
	}
	if len(d.spans) == 0 { // a line holding only a comment
		return nil
	}
	id := line[d.spans[0].from:d.spans[0].to]
	def := d.defs[string(id)]
	if def == nil {
		msg := "Event with id '" + string(id) + "' has not been defined"
		return d.fail(decodeError(msg, d.line, fieldList(line, d.spans)))
	}
	if n := len(d.spans) - 1; n < len(def.roles) && !d.opt.StrictPajeNG && userFieldsFrom(def, n) {
		// SMPI with tracing/smpi/display-sizes defines a Size field for
		// links but writes the platform's topology links without it:
		// missing trailing user fields are empty.
		for len(d.spans)-1 < len(def.roles) {
			d.spans = append(d.spans, span{from: uint32(len(line)), to: uint32(len(line))})
		}
		d.sim.shortLines++
	}
	if n := len(d.spans) - 1; n != len(def.roles) {
		return d.failf("event %s (%s) has %d fields, its definition on line %d has %d",
			id, def.name, n, def.line, len(def.roles))
	}
	def.hashKeys(line, d.spans[1:])
	return d.sim.event(def, line, d.spans, d.line)
}

// userFieldsFrom reports whether the fields of def from column n on
// (the event id not counted) are all user fields, which the model does
// not use.
func userFieldsFrom(def *eventDef, n int) bool {
	for _, r := range def.roles[n:] {
		if r != roleNone {
			return false
		}
	}
	return true
}

func (d *decoder) parseHeader(rest []byte) error {
	words := bytes.Fields(rest)
	switch {
	case len(words) > 0 && string(words[0]) == "EventDef":
		if d.open != nil {
			return d.failf("%%EventDef inside the definition of %s", d.open.name)
		}
		if len(words) != 3 {
			return d.failf("%%EventDef needs an event name and an id")
		}
		def, ok := newEventDef(string(words[1]), string(words[2]), d.line)
		if !ok {
			return d.failf("unknown event %s in %%EventDef", errs.QuoteBytes(words[1]))
		}
		if _, dup := d.defs[def.id]; dup {
			return d.failf("event id %s is defined twice", def.id)
		}
		d.open = def
		d.publish()
	case len(words) > 0 && string(words[0]) == "EndEventDef":
		if d.open == nil {
			return d.failf("%%EndEventDef without %%EventDef")
		}
		if missing := d.open.finish(d.opt.StrictPajeNG); len(missing) > 0 {
			labels := make([]string, len(missing))
			for i, r := range missing {
				labels[i] = roleLabels[r]
			}
			tokens := strings.Fields("%" + string(rest))
			return d.fail(&Error{
				Msg: "definition of " + d.open.name + " (line " + strconv.Itoa(d.open.line) +
					") lacks the field(s) " + strings.Join(labels, ", "),
				PajeNG: d.open.pajengInvalid(missing, d.line, tokens),
			})
		}
		d.defs[d.open.id] = d.open
		d.open = nil
		d.publish()
	default:
		if d.open == nil {
			return d.failf("field definition outside %%EventDef")
		}
		if len(words) != 2 {
			return d.failf("a field definition is %% Name type")
		}
		if err := d.open.addField(string(words[0]), string(words[1]), d.opt.Strict); err != nil {
			return d.failf("%v", err)
		}
	}
	return nil
}
