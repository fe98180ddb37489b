package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Compression names a compression of the input, recognised by its magic
// bytes.
type Compression uint8

// The compressions readers undo.
const (
	Plain Compression = iota
	Gzip
	Bzip2
	Zstd
)

func (c Compression) String() string {
	return [...]string{"plain", "gzip", "bzip2", "zstd"}[c]
}

// CompressedExtensions are the file name endings of compressed files,
// stripped before a format is told by its extension.
var CompressedExtensions = []string{".gz", ".bz2", ".zst", ".zstd"}

// StripCompressed returns name without a compression extension.
func StripCompressed(name string) string {
	lower := strings.ToLower(name)
	for _, ext := range CompressedExtensions {
		if strings.HasSuffix(lower, ext) {
			return name[:len(name)-len(ext)]
		}
	}
	return name
}

// Sniff tells the compression of a stream from its first bytes.
func Sniff(head []byte) Compression {
	switch {
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		return Gzip
	case len(head) >= 3 && bytes.HasPrefix(head, []byte("BZh")) && (len(head) < 4 || head[3] >= '1' && head[3] <= '9'):
		return Bzip2
	case len(head) >= 4 && bytes.Equal(head[:4], zstdMagic), isSkippable(head):
		// A zstd stream may start with a skippable frame: pzstd writes
		// one first, holding the sizes of the frames after it.
		return Zstd
	}
	return Plain
}

// DefaultMaxDecompressed bounds what a compressed input may expand to,
// unless the reader is told otherwise: decompression bombs stop with an
// error instead of filling the memory or the disk.
const DefaultMaxDecompressed int64 = 64 << 30

// ErrTruncated is the cause of the error on compressed input that ends in
// the middle of its data (a *CutError, which says where).
var ErrTruncated = errors.New("compressed data is truncated")

// CutError is ErrTruncated with where the compressed input ends.
type CutError struct {
	In  int64 // compressed bytes read: the input ends there
	Out int64 // bytes decompressed before the cut
}

func (e *CutError) Error() string { return ErrTruncated.Error() }

// Is makes a CutError match ErrTruncated.
func (e *CutError) Is(target error) bool { return target == ErrTruncated }

// ReadToCut returns a reader of r, the output of Decompress, that ends at
// a cut in the compressed data, as a plain file cut at the same place
// ends, and notes the trace incomplete, naming the file and the byte where
// the compressed data stops. A trace whose writer was stopped abruptly is
// then read up to where it stops, compressed or not; opt.Strict refuses
// it (see Strict). It ends as well where bytes that are not compressed
// data follow the last stream, as SkipTrailer does.
func ReadToCut(r io.Reader, opt trace.ReadOptions) *CutReader {
	return &CutReader{r: r, opt: opt}
}

// CutReader is ReadToCut's reader.
type CutReader struct {
	r     io.Reader
	opt   trace.ReadOptions
	cut   bool
	where string // the file and the byte where the compressed data ends
}

// Explain adds to err, a FormatError of the file met once the
// compressed data ended, that the file is cut there: the last line, cut
// short, or what it left open, is what the reader refused, and the
// error would not say why. Other errors are returned as they are.
func (c *CutReader) Explain(err error) error {
	var fe *errs.FormatError
	if !c.cut || !errors.As(err, &fe) || errors.Is(err, ErrTruncated) {
		return err
	}
	explained := *fe
	explained.Err = fmt.Errorf("%w (%s)", fe.Err, c.where)
	return &explained
}

func (c *CutReader) Read(p []byte) (int, error) {
	if c.cut {
		return 0, io.EOF
	}
	n, err := c.r.Read(p)
	if err != nil {
		err = endAtTrailer(err, c.opt)
	}
	var ce *CutError
	var fe *errs.FormatError
	if err != nil && errors.As(err, &ce) && errors.As(err, &fe) {
		c.cut = true
		c.where = fmt.Sprintf("the compressed data ends at byte %d, after %d bytes decompressed: the file is cut", ce.In, ce.Out)
		c.opt.Incomplete("%s: the compressed data ends at byte %d, in the middle of its stream, as when the program writing it stopped abruptly: the trace is read up to there (%d bytes decompressed)", fe.File, ce.In, ce.Out)
		return n, io.EOF
	}
	return n, err
}

// Decompress returns a reader of br's content, decompressed if br starts
// with the magic bytes of gzip, bzip2 or zstd, and a function that
// releases the decompressor (the caller must call it, and read no more
// after). name labels errors. The reader fails with a FormatError once
// more than limit bytes came out (limit <= 0: no limit), and with
// ErrTruncated when compressed data ends early.
//
// Compressed input is decompressed on a goroutine of its own, a few
// chunks ahead of the reader: on another core, while the caller parses
// what came before, since decompressing costs as much as parsing.
func Decompress(br *bufio.Reader, name string, limit int64) (io.Reader, func(), error) {
	head, err := br.Peek(4)
	if err != nil && err != io.EOF {
		return nil, nil, &errs.FormatError{File: name, Err: err}
	}
	var r io.Reader
	var frames *zstdFrames
	release := func() {}
	c := Sniff(head)
	e := &Expansion{What: c.String(), Limit: limit}
	in := &countedInput{br: br, e: e}
	switch c {
	case Plain:
		return br, release, nil
	case Gzip:
		gz, err := newGzipMembers(in)
		if err != nil {
			return nil, nil, &errs.FormatError{File: name, Err: fmt.Errorf("broken gzip header: %w", err)}
		}
		r, release = gz, func() { gz.Close() }
	case Bzip2:
		r = newBzip2Streams(in)
	case Zstd:
		frames = &zstdFrames{in: in}
		zr, err := zstd.NewReader(frames, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, nil, &errs.FormatError{File: name, Err: fmt.Errorf("broken zstd header: %w", err)}
		}
		r, release = zr, zr.Close
	}
	ahead := newReadAhead(&decompressed{r: r, name: name, kind: c, e: e, frames: frames}, readAheadChunk, readAheadDepth)
	return ahead, func() { ahead.close(); release() }, nil
}

// decompressed counts what comes out of a decompressor, stops a bomb (see
// Expansion) and names the errors.
type decompressed struct {
	r      io.Reader
	name   string
	kind   Compression
	e      *Expansion
	frames *zstdFrames // the input of a zstd decoder, which finds trailing bytes
}

func (d *decompressed) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if berr := d.e.Add(n); berr != nil {
		// Only the bytes within the limit are passed on: a reader keeps
		// what comes with an error (bufio does), and would otherwise
		// take lines from past max_decompressed, up to a read's worth.
		if over := d.e.Out - d.e.Limit; over > 0 {
			n -= int(min(over, int64(n)))
		}
		return n, &errs.FormatError{File: d.name, Err: berr}
	}
	switch {
	case err == nil:
		return n, nil
	case err == io.EOF && d.frames != nil && d.frames.trailing != nil:
		// The zstd decoder saw the end of its input where the trailing
		// bytes start.
		err = d.frames.trailing
	case err == io.EOF:
		return n, err
	}
	var te *TrailingError
	if errors.As(err, &te) {
		return n, &errs.FormatError{File: d.name, Offset: te.At, AtOffset: true, Err: te}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return n, &errs.FormatError{File: d.name, Err: &CutError{In: d.e.In, Out: d.e.Out}}
	}
	var fe *errs.FormatError
	if errors.As(err, &fe) {
		return n, err
	}
	return n, &errs.FormatError{File: d.name, Err: fmt.Errorf("%s: %w", d.kind, err)}
}

// CheckPath refuses what is neither a regular file nor a directory
// (devices, FIFOs, sockets): reading /dev/zero never ends, and a FIFO
// with no writer blocks forever.
func CheckPath(path string) (os.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() && !st.IsDir() {
		return nil, errs.Format(path, 0, "is not a regular file (%s): only files and directories are read", kindOf(st.Mode()))
	}
	return st, nil
}

func kindOf(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// MaxLooked bounds the files whose first bytes a format's ExplainDir
// reads to tell what a directory holds: a directory of thousands of
// ranks' files then costs a few reads, and any of them tells.
const MaxLooked = 8

// AnyHead reports whether one of the first MaxLooked files matching
// pattern (filepath.Glob) has first n bytes (decompressed) that is takes;
// files that cannot be read are passed over.
func AnyHead(pattern string, n int, is func(head []byte) bool) bool {
	files, _ := filepath.Glob(pattern)
	for _, f := range files[:min(len(files), MaxLooked)] {
		if head, err := Head(f, n); err == nil && is(head) {
			return true
		}
	}
	return false
}

// Head returns up to n bytes of the file at path, decompressed if it is
// compressed.
func Head(path string, n int) ([]byte, error) {
	if _, err := CheckPath(path); err != nil {
		return nil, err
	}
	f, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, release, err := Decompress(bufio.NewReader(f), path, 0)
	if err != nil {
		return nil, err
	}
	defer release()
	head := make([]byte, n)
	k, err := io.ReadFull(r, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		var fe *errs.FormatError
		if errors.As(err, &fe) && (errors.Is(err, ErrTruncated) || errors.Is(err, ErrTrailing)) {
			return head[:k], nil
		}
		return nil, err
	}
	return head[:k], nil
}

// Counter counts the bytes read through it, for readers' progress reports
// and the byte offsets of their errors. Its count may be read while
// another goroutine reads through it (a compressed input is decompressed
// ahead of the parser, see Decompress).
type Counter struct {
	R io.Reader
	// Stop, if set, is asked before each read: its error (a canceled
	// read, trace.ReadOptions.Canceled) is returned instead of reading.
	Stop func() error
	n    atomic.Int64
}

func (c *Counter) Read(p []byte) (int, error) {
	if c.Stop != nil {
		if err := c.Stop(); err != nil {
			return 0, err
		}
	}
	n, err := c.R.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// N returns the number of bytes read so far.
func (c *Counter) N() int64 { return c.n.Load() }

// Add counts n bytes read otherwise.
func (c *Counter) Add(n int64) { c.n.Add(n) }
