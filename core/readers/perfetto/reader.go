package perfetto

import (
	"errors"
	"io"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/pbwalk"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Format is the Perfetto protobuf trace format.
var Format = ingest.Format{
	Name:        "perfetto",
	Summary:     "Perfetto protobuf trace (track events, process tree, ftrace sched_switch)",
	Extensions:  []string{".perfetto-trace", ".pftrace", ".perfetto", ".pb"},
	Sniff:       sniff,
	ExplainFile: explain,
	Open:        ingest.Simple(Read),
}

// readFile reads a whole Perfetto trace into memory.
func readFile(path string) (*trace.Trace, error) {
	return trace.Load(path, Read)
}

// Read streams the Perfetto trace at path, plain or compressed with gzip,
// bzip2 or zstd, into sink. The file is read twice: once for the
// descriptions of tracks, processes and threads, which may come anywhere,
// so that containers get their names and places before anything is put in
// them, then for the events (a file whose content fits in a megabyte is
// read once and walked twice in memory).
func Read(path string, sink trace.Sink, opt trace.ReadOptions) error {
	st, err := ingest.CheckPath(path)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return errs.Format(path, 0, "is a directory, not a Perfetto trace")
	}
	open := func() (io.ReadCloser, error) { return ingest.OpenFile(path) }
	return decode(open, path, st.Size(), sink, opt)
}

// decode walks the trace that open opens twice; name labels errors and
// size is the input's size for progress reports.
func decode(open func() (io.ReadCloser, error), name string, size int64, sink trace.Sink, opt trace.ReadOptions) error {
	cat := newCatalog()
	packets := 0
	scan := func() decodeFunc[catalogScan] {
		return func(pkt []byte, off int64, s *catalogScan) { s.scan(pkt, off) }
	}
	count := func(pkt []byte, off int64, s *catalogScan) error {
		packets++
		return cat.apply(pkt, off, s)
	}
	var whole held // the input, when the first pass holds it whole
	cut, err := walk(open, name, size, 0, opt, &whole, scan, count)
	if err != nil {
		return namedOr(err, open, name)
	}
	if packets == 0 {
		// Nothing to read is not a trace that recorded nothing: a
		// writer always writes its configuration and clocks first.
		opt.Incomplete("%s holds no trace packet (%d bytes): the file is empty or cut", name, size)
	}
	d := newDecoder(sink, opt, cat)
	parse := func() decodeFunc[parsedPacket] {
		in := newInterner()
		return func(pkt []byte, off int64, p *parsedPacket) { p.parse(pkt, off, in) }
	}
	if _, err := walk(open, name, size, 1, opt, &whole, parse, d.apply); err != nil {
		return err
	}
	d.finish()
	noteCut(opt, name, cut, packets)
	d.m.text.Note(opt, name)
	return nil
}

// noteCut marks a trace read up to a cut (nil: none) as incomplete,
// after its packets whole packets.
func noteCut(opt trace.ReadOptions, name string, cut *cutPoint, packets int) {
	if cut != nil {
		opt.Incomplete("%s: %s, as when the tracing service, or a copy of its file, stopped abruptly: the %d whole packets before it were read",
			name, cut, packets)
	}
}

// progressEvery is how many input bytes pass between two progress reports.
const progressEvery = 4 << 20

// located turns a decoding error into a FormatError naming the file and
// the byte offset (in the decompressed input).
func located(path string, err error) error {
	var c *pbwalk.Corrupt
	if errors.As(err, &c) {
		return &errs.FormatError{File: path, AtOffset: true, Offset: c.Off, Err: c.Err}
	}
	var fe *errs.FormatError
	if errors.As(err, &fe) || errors.Is(err, trace.ErrCanceled) {
		return err
	}
	return &errs.FormatError{File: path, Err: err}
}

// inflater expands the compressed packets of a pass over a trace: each
// field to at most maxInflated bytes, all of them counted as one
// decompressor's output (ingest.Expansion: a bomb of many fields stops at
// the limit or at a bomb's ratio), and never nested: Perfetto's writer
// compresses packets once, and compressed packets inside compressed
// packets would multiply at each level.
type inflater struct {
	exp   ingest.Expansion
	depth int
}

func newInflater() *inflater {
	return &inflater{exp: ingest.Expansion{What: "compressed packets", Limit: ingest.DefaultMaxDecompressed}}
}

// each calls fn for each packet held in a compressed_packets or
// zstd_compressed_packets field. Errors inside are located at the field.
func (in *inflater) each(f field, zstdData bool, fn func(pkt []byte, off int64) error) error {
	if in.depth > 0 {
		return pbwalk.Corruptf(f.Off, "compressed packets inside compressed packets: Perfetto compresses packets once (a decompression bomb?)")
	}
	in.exp.In += int64(len(f.B))
	data, err := inflate(f, zstdData)
	if err != nil {
		return err
	}
	if err := in.exp.Add(len(data)); err != nil {
		return pbwalk.Corruptf(f.Off, "%v", err)
	}
	in.depth++
	defer func() { in.depth-- }()
	return eachInner(f, data, fn)
}

// eachInner calls fn for each packet of data, the content of a
// compressed_packets or zstd_compressed_packets field f. Errors inside are
// located at the field.
func eachInner(f field, data []byte, fn func(pkt []byte, off int64) error) error {
	err := pbwalk.Each(data, 0, func(g field) error {
		if g.Num != 1 || !g.IsBytes() {
			return nil
		}
		return fn(g.B, 0)
	})
	if err != nil {
		var c *pbwalk.Corrupt
		if errors.As(err, &c) {
			return pbwalk.Corruptf(f.Off, "in compressed packets (at their byte %d): %v", c.Off, c.Err)
		}
		return err
	}
	return nil
}
