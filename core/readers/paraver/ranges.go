package paraver

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/textlines"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A .prv file is split across processes by byte ranges: every record is
// one line, complete in itself (a state carries its begin and end, a
// communication both ends), so a range of whole lines, read after the
// header line that every range shares, yields exactly the records a whole
// read yields from those lines.

// ranges cuts the plain (uncompressed) .prv file at path into at most n
// byte ranges of about equal size, each starting at the beginning of a
// line after the header line and ending after a newline (the last at the
// end of the file). Each range is [r[0], r[1]).
func ranges(path string, n int) ([][2]int64, error) {
	f, err := ingest.OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	header, err := headerLine(f, path)
	if err != nil {
		return nil, err
	}
	line := bytes.TrimRight(header, "\r\n")
	line = line[bytes.LastIndexByte(line, '\n')+1:] // past a "new format" line
	if h, err := parseHeader(string(line)); err == nil && isOvni(h) {
		// Its states run from one line to another (see ovni.go): one
		// part only.
		n = 1
	}
	return textlines.Ranges(f, int64(len(header)), st.Size(), n, nil)
}

// headerLine returns the first line of a plain .prv file, with its newline
// (and the "new format" marker line some writers put before it).
func headerLine(f *os.File, path string) ([]byte, error) {
	br := bufio.NewReader(io.NewSectionReader(f, 0, 1<<62))
	head, _ := br.Peek(4)
	if ingest.Sniff(head) != ingest.Plain {
		return nil, errs.Argument("part_start", "%s is compressed: byte ranges need a plain .prv", path)
	}
	var out []byte
	for {
		line, err := br.ReadBytes('\n')
		out = append(out, line...)
		if err != nil {
			return nil, errs.Format(path, 1, "no header line ending")
		}
		if string(bytes.TrimRight(line, "\r\n")) != "new format" {
			return out, nil
		}
	}
}

// readRange reads the records of the lines in [from, to) after the header.
func readRange(path string, o options, from, to int64, sink trace.Sink, opt trace.ReadOptions) error {
	cfg, err := loadConfig(configPaths(path))
	if err != nil {
		return err
	}
	f, err := ingest.OpenFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	header, err := headerLine(f, path)
	if err != nil {
		return err
	}
	if from < int64(len(header)) || to < from {
		return errs.Argument("part_start", "the byte range [%d, %d) does not lie after the header of %s", from, to, path)
	}
	r := io.MultiReader(bytes.NewReader(header), io.NewSectionReader(f, from, to-from))
	err = decodeInput(r, textlines.Input{Name: path, Total: int64(len(header)) + to - from}, cfg, o.View, sink, opt)
	var fe *errs.FormatError
	if errors.As(err, &fe) && fe.Line > 1 {
		// Line numbers count from the range's start.
		fe.Err = fmt.Errorf("line %d of the part starting at byte %d: %w", fe.Line-1, from, fe.Err)
		fe.Line, fe.Offset = 0, from
	}
	return err
}
