package perfetto

import (
	"bufio"
	"errors"
	"io"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Format is the Perfetto protobuf trace format.
var Format = ingest.Format{
	Name:       "perfetto",
	Summary:    "Perfetto protobuf trace (track events, process tree, ftrace sched_switch)",
	Extensions: []string{".perfetto-trace", ".pftrace", ".perfetto", ".pb"},
	Sniff:      sniff,
	Open:       ingest.Simple(Read),
}

// readFile reads a whole Perfetto trace into memory.
func readFile(path string) (*trace.Trace, error) {
	return trace.Load(path, Read)
}

// Read streams the Perfetto trace at path, plain or compressed with gzip,
// bzip2 or zstd, into sink. The file is read twice: once for the
// descriptions of tracks, processes and threads, which may come anywhere,
// so that containers get their names and places before anything is put in
// them, then for the events.
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

// decode reads the trace that open opens, twice; name labels errors and
// size is the input's size for progress reports.
func decode(open func() (io.ReadCloser, error), name string, size int64, sink trace.Sink, opt trace.ReadOptions) error {
	cat := newCatalog()
	packets := 0
	count := func(pkt []byte, off int64) error {
		packets++
		return cat.packet(pkt, off)
	}
	if err := walk(open, name, size, 0, opt, count); err != nil {
		return err
	}
	if packets == 0 {
		// Nothing to read is not a trace that recorded nothing: a
		// writer always writes its configuration and clocks first.
		opt.Incomplete("%s holds no trace packet (%d bytes): the file is empty or cut", name, size)
	}
	d := newDecoder(sink, opt, cat)
	if err := walk(open, name, size, 1, opt, d.packet); err != nil {
		return err
	}
	d.finish()
	d.m.text.Note(opt, name)
	return nil
}

// progressEvery is how many input bytes pass between two progress reports
// and cancellation checks.
const progressEvery = 4 << 20

// walk reads the packets of the file at path and hands each to fn with
// its offset. pass (0 or 1) places the progress reports: each pass reads
// the whole file, so the total reported is twice its size.
func walk(open func() (io.ReadCloser, error), path string, size int64, pass int, opt trace.ReadOptions, fn func(pkt []byte, off int64) error) error {
	f, err := open()
	if err != nil {
		return err
	}
	defer f.Close()
	cr := &countingReader{r: f, opt: opt, base: int64(pass) * size, total: 2 * size, next: progressEvery}
	in, release, err := ingest.Decompress(bufio.NewReaderSize(cr, 64<<10), path, ingest.DefaultMaxDecompressed)
	if err != nil {
		return err
	}
	defer release()
	br, ok := in.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(in, 64<<10)
	}
	pr := &packetReader{br: br}
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := opt.Canceled(); err != nil {
				return err
			}
		}
		pkt, off, err := pr.next()
		if err == io.EOF {
			break
		}
		if err == nil {
			err = fn(pkt, off)
		}
		if err != nil {
			return located(path, err)
		}
	}
	if pass == 0 && pr.others > 0 {
		opt.Skip("top-level fields of the trace other than packets", pr.others)
	}
	if opt.Progress != nil {
		opt.Progress(cr.base+cr.done, cr.total)
	}
	return nil
}

// located turns a decoding error into a FormatError naming the file and
// the byte offset (in the decompressed input).
func located(path string, err error) error {
	var c *corrupt
	if errors.As(err, &c) {
		return &errs.FormatError{File: path, AtOffset: true, Offset: c.off, Err: c.err}
	}
	var fe *errs.FormatError
	if errors.As(err, &fe) || errors.Is(err, trace.ErrCanceled) {
		return err
	}
	return &errs.FormatError{File: path, Err: err}
}

// countingReader counts the bytes read from the file, reports progress
// and stops the read once it is canceled.
type countingReader struct {
	r                 io.Reader
	opt               trace.ReadOptions
	base, done, total int64
	next              int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if err := c.opt.Canceled(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	c.done += int64(n)
	if c.opt.Progress != nil && c.done >= c.next {
		c.opt.Progress(c.base+c.done, c.total)
		c.next = c.done + progressEvery
	}
	return n, err
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
		return corruptf(f.Off, "compressed packets inside compressed packets: Perfetto compresses packets once (a decompression bomb?)")
	}
	in.exp.In += int64(len(f.B))
	data, err := inflate(f, zstdData)
	if err != nil {
		return err
	}
	if err := in.exp.Add(len(data)); err != nil {
		return corruptf(f.Off, "%v", err)
	}
	in.depth++
	defer func() { in.depth-- }()
	return eachInner(f, data, fn)
}

// eachInner calls fn for each packet of data, the content of a
// compressed_packets or zstd_compressed_packets field f. Errors inside are
// located at the field.
func eachInner(f field, data []byte, fn func(pkt []byte, off int64) error) error {
	err := fields(data, 0, func(g field) error {
		if g.Num != 1 || !g.isBytes() {
			return nil
		}
		return fn(g.B, 0)
	})
	if err != nil {
		var c *corrupt
		if errors.As(err, &c) {
			return corruptf(f.Off, "in compressed packets (at their byte %d): %v", c.off, c.err)
		}
		return err
	}
	return nil
}
