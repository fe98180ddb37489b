package ingest

import (
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A compressed file may hold several streams end to end (gzip members,
// zstd frames: what `cat a.gz b.gz` and parallel compressors write), all
// of which are read. It may also go on past its last stream with bytes
// that start no other: padding, or a file written over a longer one.
// gzip(1) and zstd(1) read such a file in full and warn about the rest;
// so do the readers: the decompressors below stop at the end of the last
// stream and end with a TrailingError, which ReadToCut and SkipTrailer
// turn into a warning (a strict read: an error) naming the byte where the
// trailing bytes start. Left to themselves, Go's gzip reader takes 1 to 9
// such bytes for a member cut short (the trace marked incomplete though
// all of it was read) and 10 or more for a broken header (the read
// refused, without saying where), and zstd's reader fails on them alike.
// Bytes that begin a stream's magic number and stop are a stream cut
// short, as a writer stopped while starting one leaves them: the
// decompressor reports the cut.

// ErrTrailing is the cause of the error that ends decompressed input
// followed by bytes that are not compressed data (a *TrailingError).
var ErrTrailing = errors.New("trailing bytes after the compressed data")

// TrailingError is ErrTrailing with where the compressed data ends.
type TrailingError struct {
	Kind  Compression
	At    int64 // the byte where the trailing bytes start
	Bytes int64 // how many there are
	Zeros bool  // they are all zero (padding)
}

func (e *TrailingError) Error() string {
	what := "bytes that are not " + e.Kind.String() + " data"
	if e.Zeros {
		what = "zero bytes (padding)"
	}
	return fmt.Sprintf("the %s data ends at byte %d, followed by %d %s", e.Kind, e.At, e.Bytes, what)
}

// Is makes a TrailingError match ErrTrailing.
func (e *TrailingError) Is(target error) bool { return target == ErrTrailing }

// trailer measures what is left of in from where the compressed data
// ends, reading it to its end, and returns its TrailingError (or the
// error of reading it).
func trailer(kind Compression, in *countedInput) error {
	t := &TrailingError{Kind: kind, At: in.e.In, Zeros: true}
	buf := make([]byte, 32<<10)
	for {
		n, err := in.br.Read(buf)
		t.Bytes += int64(n)
		t.Zeros = t.Zeros && allZero(buf[:n])
		if err == io.EOF {
			return t
		}
		if err != nil {
			return err
		}
	}
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// prefixOf tells whether head is a proper start of magic.
func prefixOf(head, magic []byte) bool {
	return len(head) < len(magic) && bytes.HasPrefix(magic, head)
}

var gzipMagic = []byte{0x1f, 0x8b}

// gzipMembers reads the members of a gzip file one after the other, and
// ends with a TrailingError at bytes after the last that do not start
// another.
type gzipMembers struct {
	z  *gzip.Reader
	in *countedInput
}

func newGzipMembers(in *countedInput) (*gzipMembers, error) {
	z, err := gzip.NewReader(in)
	if err != nil {
		return nil, err
	}
	z.Multistream(false)
	return &gzipMembers{z: z, in: in}, nil
}

func (g *gzipMembers) Read(p []byte) (int, error) {
	for {
		n, err := g.z.Read(p)
		if err != io.EOF {
			return n, err
		}
		if n > 0 {
			return n, nil // the member's end comes again at the next read
		}
		// The member ended; its reader read nothing past it (the input is
		// a flate.Reader, read byte by byte), so that the next byte of
		// the input is the next member's, or a trailer's.
		head, err := g.in.br.Peek(len(gzipMagic))
		switch {
		case len(head) == 0 && err == io.EOF:
			return 0, io.EOF
		case err != nil && err != io.EOF:
			return 0, err
		case !bytes.Equal(head, gzipMagic) && !prefixOf(head, gzipMagic):
			return 0, trailer(Gzip, g.in)
		}
		at := g.in.e.In
		if err := g.z.Reset(g.in); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return 0, err // a member cut in its header
			}
			return 0, fmt.Errorf("the gzip member starting at byte %d: %w", at, err)
		}
		g.z.Multistream(false)
	}
}

func (g *gzipMembers) Close() error { return g.z.Close() }

// bzip2Streams reads the streams of a bzip2 file one after the other, as
// Go's reader does, and ends with a TrailingError at bytes after the last
// that do not start another. Go's reader takes the two bytes after a
// stream for the magic number of the next ("BZ") and fails on others;
// they are where the trailing bytes start. One byte alone is read as a
// stream cut short: nothing tells it from one.
type bzip2Streams struct {
	r    io.Reader
	in   *bzip2Input
	done error
}

// bzip2Input is a bzip2 reader's input, which it reads byte by byte, with
// the last two bytes read.
type bzip2Input struct {
	*countedInput
	last [2]byte
}

func (b *bzip2Input) ReadByte() (byte, error) {
	c, err := b.countedInput.ReadByte()
	if err == nil {
		b.last[0], b.last[1] = b.last[1], c
	}
	return c, err
}

func newBzip2Streams(in *countedInput) *bzip2Streams {
	bin := &bzip2Input{countedInput: in}
	return &bzip2Streams{r: bzip2.NewReader(bin), in: bin}
}

func (b *bzip2Streams) Read(p []byte) (int, error) {
	if b.done != nil {
		return 0, b.done
	}
	n, err := b.r.Read(p)
	var se bzip2.StructuralError
	if errors.As(err, &se) && strings.Contains(string(se), "continuation") {
		last := b.in.last
		err = trailer(Bzip2, b.in.countedInput)
		if te, ok := err.(*TrailingError); ok {
			te.At -= 2
			te.Bytes += 2
			te.Zeros = te.Zeros && last == [2]byte{}
		}
	}
	if err != nil {
		b.done = err
	}
	return n, err
}

// The magic numbers of zstd frames, and of the skippable frames a zstd
// stream may hold (the first byte's low nibble is free).
var (
	zstdMagic      = []byte{0x28, 0xb5, 0x2f, 0xfd}
	skippableMagic = []byte{0x50, 0x2a, 0x4d, 0x18}
)

func isSkippable(head []byte) bool {
	return len(head) >= 4 && head[0]&0xf0 == 0x50 && bytes.Equal(head[1:4], skippableMagic[1:])
}

// zstdFrames passes a zstd stream to its decoder up to the end of its
// last frame, and ends there, with a TrailingError when bytes that start
// no frame follow (the decoder sees the end of its input there, as at the
// end of a file). It finds where frames end from their headers and their
// blocks' headers, which it reads as they go by; what it does not
// understand (a reserved bit, a header cut short) it passes on to the
// end of the input, for the decoder to refuse.
type zstdFrames struct {
	in       *countedInput
	left     int64 // bytes of the current piece still to pass on
	state    uint8
	checksum bool  // the current frame ends with a checksum
	all      bool  // pass everything on
	trailing error // the TrailingError met, once met
}

// zstdFrames' states: where the next piece starts.
const (
	atFrame    = iota // a frame (or the end)
	atBlock           // a block header
	atChecksum        // the frame's checksum, after its last block
)

func (z *zstdFrames) Read(p []byte) (int, error) {
	for z.left == 0 && !z.all {
		if z.trailing != nil {
			return 0, io.EOF
		}
		if err := z.next(); err != nil {
			return 0, err
		}
	}
	if !z.all && int64(len(p)) > z.left {
		p = p[:z.left]
	}
	n, err := z.in.Read(p)
	z.left -= int64(n)
	return n, err
}

// next finds the extent of the next piece: a frame header, a block, a
// checksum, a skippable frame.
func (z *zstdFrames) next() error {
	br := z.in.br
	switch z.state {
	case atFrame:
		head, err := br.Peek(4)
		switch {
		case len(head) == 0 && err == io.EOF:
			return io.EOF
		case err != nil && err != io.EOF:
			return err
		case len(head) < 4:
			if prefixOf(head, zstdMagic) || head[0]&0xf0 == 0x50 && prefixOf(head[1:], skippableMagic[1:]) {
				z.all = true // a frame cut in its magic number
				return nil
			}
			z.trailing = trailer(Zstd, z.in)
			return io.EOF
		case isSkippable(head):
			h, err := br.Peek(8)
			if err != nil && err != io.EOF {
				return err
			}
			if len(h) < 8 {
				z.all = true
				return nil
			}
			z.left = 8 + int64(uint32(h[4])|uint32(h[5])<<8|uint32(h[6])<<16|uint32(h[7])<<24)
			return nil
		case !bytes.Equal(head, zstdMagic):
			z.trailing = trailer(Zstd, z.in)
			return io.EOF
		}
		h, err := br.Peek(5)
		if err != nil && err != io.EOF {
			return err
		}
		if len(h) < 5 || h[4]&0x08 != 0 { // cut, or the reserved bit
			z.all = true
			return nil
		}
		fhd := h[4]
		single := fhd&0x20 != 0
		size := int64(5)
		if !single {
			size++ // the window descriptor
		}
		size += [4]int64{0, 1, 2, 4}[fhd&3] // the dictionary ID
		switch fhd >> 6 {                   // the frame content size
		case 0:
			if single {
				size++
			}
		case 1:
			size += 2
		case 2:
			size += 4
		case 3:
			size += 8
		}
		z.checksum = fhd&0x04 != 0
		z.left, z.state = size, atBlock
	case atBlock:
		h, err := br.Peek(3)
		if err != nil && err != io.EOF {
			return err
		}
		if len(h) < 3 {
			z.all = true
			return nil
		}
		b := uint32(h[0]) | uint32(h[1])<<8 | uint32(h[2])<<16
		last, kind, size := b&1 != 0, (b>>1)&3, int64(b>>3)
		switch kind {
		case 1: // RLE: one byte, repeated size times
			size = 1
		case 3: // reserved
			z.all = true
			return nil
		}
		z.left = 3 + size
		if last {
			z.state = atChecksum
		}
	case atChecksum:
		z.state = atFrame
		if z.checksum {
			z.left = 4
		}
	}
	return nil
}

// SkipTrailer wraps the reader of a trace's decompressed input, r, the
// output of Decompress, so that bytes after the compressed data (see
// TrailingError) end it: the data before them is read in full and the
// trailing bytes noted in a warning naming the file and the byte where
// they start, or, in a strict read (opt.Strict), refused with that
// error. ReadToCut does it too, for the readers that use it.
func SkipTrailer(r io.Reader, opt trace.ReadOptions) io.Reader {
	return &trailerReader{r: r, opt: opt}
}

type trailerReader struct {
	r   io.Reader
	opt trace.ReadOptions
	end error
}

func (t *trailerReader) Read(p []byte) (int, error) {
	if t.end != nil {
		return 0, t.end
	}
	n, err := t.r.Read(p)
	if err != nil {
		err = endAtTrailer(err, t.opt)
		t.end = err
	}
	return n, err
}

// endAtTrailer returns io.EOF for err, the error of a decompressed input
// followed by trailing bytes, noting them in opt's warnings, or, in a
// strict read, err itself; other errors as they are.
func endAtTrailer(err error, opt trace.ReadOptions) error {
	var te *TrailingError
	var fe *errs.FormatError
	if !errors.As(err, &te) || !errors.As(err, &fe) || opt.Strict {
		return err
	}
	what := fmt.Sprintf("%d bytes that are not %s data (trailing garbage)", te.Bytes, te.Kind)
	if te.Zeros {
		what = fmt.Sprintf("%d zero bytes (padding)", te.Bytes)
	}
	opt.Warn("%s: the %s data ends at byte %d, followed by %s: ignored, the data before them read in full", fe.File, te.Kind, te.At, what)
	return io.EOF
}
