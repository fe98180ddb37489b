package pjdump

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/textlines"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// pj_dump's output is split across processes by byte ranges of whole
// lines (textlines.Ranges). A line is a record in itself, except that it
// names its container, which only the container lines before it place:
// pj_dump prints the containers depth first, each followed by its
// entities, and names them by names that need not be unique. So a part
// first reads the container lines before its range (a scan for lines
// starting with "Container", not a parse of the others), which gives the
// hierarchy and the depth-first path that the whole read has there, then
// the lines of its range. A range never starts at a nested state (an
// imbrication above 0): pj_dump prints a state's nested states after it,
// and they go to the part that has it.
//
// The links wait for the end, as in the whole read: they name the
// containers at their ends by name, possibly containers printed later in
// the file. A part with links reads the container lines after its range
// too, and the whole read defines link types and values after every
// other definition: both are made after trace.DeferSink's Defer, so that
// micro.Merge puts them after the definitions of the parts that follow.
// Every part's containers are then those of the file up to some line, in
// the file's order, and the merged model is the whole read's.

// ranges cuts the pj_dump output at path into at most n byte ranges of
// whole lines of about equal size (textlines.ranges), the options
// part_start and part_end of a part. It returns nil, and no error, for
// what cannot be cut: a directory of split files, a compressed file
// (which is read from its start), a file that starts with a header line
// (pj_dump_csv's split files).
func ranges(path string, n int) ([][2]int64, error) {
	f, err := ingest.OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, err
	}
	if ok, err := cuttable(f); !ok || err != nil {
		return nil, err
	}
	return textlines.Ranges(f, 0, st.Size(), n, notNested)
}

// notNested tells whether a range may start at line: not at a state
// nested in another (imbrication above 0), which must be read with the
// state enclosing it, printed before it: the innermost states of a part
// are then those of the whole trace.
func notNested(line []byte) bool {
	fields, err := splitLine(bytes.TrimRight(line, "\r"), nil)
	if err != nil || len(fields) < 7 || string(fields[0].text) != "State" {
		return true
	}
	x, err := strconv.ParseFloat(string(fields[6].text), 64)
	return err != nil || x == 0
}

// cuttable tells whether a file can be read by byte ranges: plain text
// whose first line is a record, not a header.
func cuttable(f *os.File) (bool, error) {
	br := bufio.NewReader(io.NewSectionReader(f, 0, 1<<62))
	head, _ := br.Peek(4)
	if ingest.Sniff(head) != ingest.Plain {
		return false, nil
	}
	for {
		line, err := br.ReadSlice('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			fields, ferr := splitLine(bytes.TrimRight(line, "\r\n"), nil)
			if ferr != nil {
				return true, nil // the parts fail on it as the whole read does
			}
			_, header := parseHeader(fields)
			return !header, nil
		}
		if err == bufio.ErrBufferFull {
			return false, nil
		}
		if err != nil {
			return true, nil // blank: the read says so
		}
	}
}

// readRange reads the records of the lines in the byte range [from, to)
// of the pj_dump output at path (see above).
func readRange(path string, from, to int64, sink trace.Sink, opt readOptions) error {
	f, err := ingest.OpenFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	if !st.Mode().IsRegular() {
		return errs.Argument("part_start", "%s is not a file: a byte range needs one", path)
	}
	if from < 0 || to < from || to > size {
		return errs.Argument("part_start", "the byte range [%d, %d) does not lie in %s (%d bytes)", from, to, path, size)
	}
	if ok, err := cuttable(f); err != nil {
		return err
	} else if !ok {
		return errs.Argument("part_start", "%s is compressed or starts with a header: it cannot be read by byte ranges", path)
	}
	d := newDecoder(sink)
	d.onInverted, d.unit = opt.OnInverted, opt.TimeUnit
	d.startFile(path)
	// The first line is a record (cuttable): no header to look for.
	d.sawData = true
	before, err := d.containerLines(f, 0, from, 0, opt.ReadOptions)
	if err != nil {
		return err
	}
	d.base, d.line = before, before
	in := textlines.Input{Name: path, Total: to - from, MaxDecompressed: opt.MaxDecompressed}
	if _, err := d.decode(io.NewSectionReader(f, from, to-from), in, opt.ReadOptions); err != nil {
		return err
	}
	if size == 0 {
		opt.Incomplete("%s is empty: that part of the trace is missing", path)
	}
	if len(d.links) > 0 {
		if ds, ok := sink.(trace.DeferSink); ok {
			ds.Defer()
		}
		if _, err := d.containerLines(f, to, size, d.line, opt.ReadOptions); err != nil {
			return err
		}
	}
	if d.lines == 0 && size > 0 {
		// A range of blank lines only: the file is empty only if it has
		// no record anywhere, as the whole read judges it.
		if d.recordsElsewhere, err = hasRecord(f, size); err != nil {
			return &errs.FormatError{File: path, Err: err}
		}
	}
	return d.finish()
}

// hasRecord reports whether the first size bytes of f hold anything but
// blanks, as the reader tells a blank line (bytes.TrimSpace).
func hasRecord(f io.ReaderAt, size int64) (bool, error) {
	buf := make([]byte, min(scanBlock, size))
	for off := int64(0); off < size; {
		k, err := f.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if len(bytes.TrimSpace(buf[:k])) > 0 {
			return true, nil
		}
		if k == 0 {
			return false, err
		}
		off += int64(k)
	}
	return false, nil
}

// containerLines passes the container lines of the byte range [from, to)
// of f, whose first line is line base+1, to the decoder, and returns the
// number of the range's last line. The other lines are not parsed: the
// range is read by large blocks, searched for "Container" (a fast
// substring search) and counted for newlines, so that the scan costs a
// small fraction of a parse.
func (d *decoder) containerLines(f io.ReaderAt, from, to int64, base int, opt trace.ReadOptions) (n int, err error) {
	word := []byte("Container")
	d.held = opt.Held
	buf := make([]byte, min(scanBlock, max(to-from, 1)))
	// What the block weighs against the budget once a long line grew it
	// (a block of scanBlock is not weighed, as the reads' buffers are
	// not).
	var weighed int64
	defer func() { opt.Held(-weighed) }()
	n = base // lines before the block
	for off := from; off < to; {
		k, err := f.ReadAt(buf[:min(int64(len(buf)), to-off)], off)
		if err != nil && err != io.EOF {
			return n, &errs.FormatError{File: d.file, Line: n + 1, AtOffset: true, Offset: off, Err: err}
		}
		if k == 0 {
			return n, &errs.FormatError{File: d.file, Line: n + 1, AtOffset: true, Offset: off, Err: io.ErrUnexpectedEOF}
		}
		block := buf[:k]
		if off+int64(k) < to {
			// Whole lines only; a line longer than the block grows it,
			// up to the longest line a read takes (textlines.MaxLine,
			// with its end), weighed before it is made: a plain file of
			// gigabytes without an end of line no longer takes a block
			// of its size.
			last := bytes.LastIndexByte(block, '\n')
			if last < 0 {
				if len(buf) >= textlines.MaxLine {
					return n, textlines.LineTooLong(d.file, n+1, off, int64(len(buf)))
				}
				size := min(2*len(buf), textlines.MaxLine)
				// The old block is alive when the new one is made: both weigh.
				if herr := opt.Held(int64(size)); herr != nil {
					opt.Held(-int64(size))
					return n, &errs.FormatError{File: d.file, Line: n + 1, AtOffset: true, Offset: off, Err: herr}
				}
				opt.Held(-weighed)
				weighed = int64(size)
				buf = make([]byte, size)
				continue
			}
			block = block[:last+1]
		}
		counted, pos := 0, 0
		for {
			i := bytes.Index(block[pos:], word)
			if i < 0 {
				break
			}
			i += pos
			start := bytes.LastIndexByte(block[:i], '\n') + 1
			end := len(block)
			if j := bytes.IndexByte(block[i:], '\n'); j >= 0 {
				end = i + j + 1
			}
			if line := block[start:end]; isContainerLine(line) {
				n += bytes.Count(block[counted:start], []byte{'\n'})
				counted = start
				d.line = n + 1
				if err := d.parseLine(line); err != nil {
					return n, err
				}
				if d.stop != nil && d.stop() {
					return n, errFound
				}
			}
			pos = end
		}
		n += bytes.Count(block[counted:], []byte{'\n'})
		if block[len(block)-1] != '\n' {
			n++ // the last line of the file, without its newline
		}
		off += int64(len(block))
		if err := opt.Canceled(); err != nil {
			return n, err
		}
	}
	return n, nil
}

// scanBlock is the size of the blocks containerLines reads.
const scanBlock = 4 << 20

// isContainerLine tells the lines whose nature, the first field, is
// Container (as splitLine reads it: after blanks, maybe quoted).
func isContainerLine(line []byte) bool {
	line = bytes.TrimLeft(line, " \t")
	line = bytes.TrimPrefix(line, []byte{'"'})
	return bytes.HasPrefix(line, []byte("Container"))
}
