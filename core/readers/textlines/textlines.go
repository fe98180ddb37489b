// Package textlines reads line-oriented text traces (Paraver records,
// pj_dump tables): plain or compressed input (gzip, bzip2, zstd: see
// ingest.Decompress), recognised by its magic bytes, plain files mapped
// in memory where the caller allows it (mapped.go), lines of any length,
// progress reports and cancellation every megabyte, and errors that name the file, the line and the byte offset;
// and cuts plain input into byte ranges of whole lines (Ranges), the parts
// of a distributed read.
package textlines

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// ReportEvery is how many input bytes pass between two progress reports
// and two looks at ReadOptions.Cancel.
const ReportEvery = 1 << 20

// MaxLine bounds the length of a line: trace lines are a few dozen bytes
// to a few kilobytes. A line past it (gigabytes of one line: a
// decompression bomb, a file that is not text) stops the read with an
// error naming the line, instead of a buffer of its size.
const MaxLine = 256 << 20

// maxLine is MaxLine, a variable so that the fuzz test can scan lines
// past a limit of a few kilobytes. It is never below the text buffer.
var maxLine = MaxLine

// LineTooLong is the error of a line, number line of file, starting at
// byte offset, that runs past MaxLine without an end: read bytes of it
// were read when the reader gave up.
func LineTooLong(file string, line int, offset, read int64) *errs.FormatError {
	return &errs.FormatError{File: file, Line: line, AtOffset: true, Offset: offset, Err: fmt.Errorf(
		"the line runs past %d MiB (%d bytes read) without an end of line: not a text trace, or a decompression bomb", maxLine>>20, read)}
}

// ErrTruncated is the cause of the error on compressed input that ends in
// the middle of its data.
var ErrTruncated = ingest.ErrTruncated

// Input names a stream for errors and places it in a larger read for
// progress reports.
type Input struct {
	Name   string // the file, for errors
	Before int64  // input bytes of the files read before this one
	Total  int64  // input bytes of the whole read; 0 if unknown
	// MaxDecompressed bounds what compressed input may expand to: 0
	// means ingest.DefaultMaxDecompressed, a negative value no limit.
	MaxDecompressed int64
	// Map lets Scan map a plain file in memory instead of reading it
	// (see scanMapped), for a caller that keeps no byte of a line past
	// its call: the bytes are the file's pages, gone once Scan returns.
	Map bool
}

// bufferSizes returns the sizes of the buffers of the input and of its
// text: 64 KiB and 1 MiB, or less for a small input of known size (a
// buffer larger than the input costs its allocation and nothing else;
// compressed text longer than its buffer is read all the same).
func bufferSizes(total int64) (input, text int) {
	input, text = 64<<10, 1<<20
	if total > 0 && total < int64(text) {
		text = max(4<<10, int(total)+1)
		input = min(input, text)
	}
	return input, text
}

// Scan calls line for each line of r, with its terminator, and its number
// counted from 1. It stops at the first error line returns, at a read
// error (a partial last line is then not passed on: the error says where
// the input broke), or once opt.Cancel is closed. Compressed input cut in
// the middle of its data ends at the cut, as a plain file cut there ends,
// and is noted incomplete (ingest.ReadToCut). It reports progress to
// opt.Progress and returns the number of input bytes consumed.
func Scan(r io.Reader, in Input, opt trace.ReadOptions, line func(text []byte, number int) error) (int64, error) {
	if f, ok := r.(*os.File); ok && in.Map {
		if data, unmap, ok := ingest.MapPlain(f, mapMin); ok {
			defer unmap()
			return scanMapped(f, data, in, opt, line)
		}
	}
	counted := &ingest.Counter{R: r}
	limit := in.MaxDecompressed
	if limit == 0 {
		limit = ingest.DefaultMaxDecompressed
	}
	inSize, textSize := bufferSizes(in.Total)
	text, release, err := ingest.Decompress(bufio.NewReaderSize(counted, inSize), in.Name, limit)
	if err != nil {
		return 0, err
	}
	defer release()
	cut := ingest.ReadToCut(text, opt)
	br := bufio.NewReaderSize(cut, textSize)
	var done, nextReport int64
	n := 0
	for {
		text, err := br.ReadSlice('\n')
		held := int64(0)
		if err == bufio.ErrBufferFull {
			// A copy of the buffer's size exactly, not append's size
			// class: the growths below, which the mapped scan's
			// holdLongLine repeats, start from it.
			long := make([]byte, len(text))
			copy(long, text)
			for err == bufio.ErrBufferFull {
				text, err = br.ReadSlice('\n')
				if read := len(long) + len(text); read > maxLine {
					opt.Held(-held)
					return counted.N(), LineTooLong(in.Name, n+1, done, int64(read))
				}
				if len(long)+len(text) > cap(long) {
					// Grown here rather than by append: the new buffer is
					// weighed before it is made, the old one with it while
					// both are alive, and it stops at MaxLine instead of
					// doubling past it.
					size := min(max(2*cap(long), len(long)+len(text)), maxLine)
					if herr := opt.Held(int64(size)); herr != nil {
						opt.Held(-held - int64(size))
						// Where the read outgrew the budget, for the
						// front end to say (budget.Named).
						return counted.N(), &errs.FormatError{File: in.Name, Line: n + 1, AtOffset: true, Offset: done, Err: herr}
					}
					bigger := make([]byte, len(long), size)
					copy(bigger, long)
					opt.Held(-held)
					long, held = bigger, int64(size)
				}
				long = append(long, text...)
			}
			text = long
		}
		if err != nil && err != io.EOF {
			opt.Held(-held)
			// The decompressor's errors name the file already.
			var fe *errs.FormatError
			if errors.As(err, &fe) {
				err = fe.Err
			}
			return counted.N(), &errs.FormatError{File: in.Name, Line: n + 1, AtOffset: true, Offset: done, Err: err}
		}
		if len(text) > 0 {
			done += int64(len(text))
			n++
			lerr := line(text, n)
			opt.Held(-held)
			if lerr != nil {
				return counted.N(), cut.Explain(lerr)
			}
			if counted.N() >= nextReport {
				if err := opt.Canceled(); err != nil {
					return counted.N(), err
				}
				if opt.Progress != nil {
					opt.Progress(in.Before+counted.N(), in.Total)
				}
				nextReport = counted.N() + ReportEvery
			}
		}
		if err == io.EOF {
			break
		}
	}
	if opt.Progress != nil {
		opt.Progress(in.Before+counted.N(), in.Total)
	}
	return counted.N(), nil
}
