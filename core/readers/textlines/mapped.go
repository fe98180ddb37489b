package textlines

import (
	"bytes"
	"os"
	"runtime/debug"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A plain regular file of mapMin bytes or more, given as an *os.File at
// its start, is mapped in memory rather than read when Input.Map allows
// it (ingest.MapFile): its lines are then slices of the page cache itself,
// which spares the kernel copying every byte into a buffer (5% of the CPU
// of a pj_dump read) and the scanner copying what a buffer boundary cuts.
// The pages passed are given back every dropEvery bytes
// (ingest.DropPages), so that the process's memory stays that of a
// window, not of the file. A file cut short while it is read stops the
// scan with ingest.ErrFileShrank.

// mapMin is the size from which files are mapped: below it, reading
// costs as little. dropEvery (a power of two, a multiple of any page size)
// is how many bytes pass before the pages behind them are given back.
// Variables, so that tests can map small files in many steps.
var (
	mapMin    int64 = 1 << 20
	dropEvery       = 2 << 20
)

// scanMapped is Scan of data, the plain file f mapped in memory: the
// same lines, numbers, errors and progress reports, at the places the
// whole lines end rather than where reads of the file did.
func scanMapped(f *os.File, data []byte, in Input, opt trace.ReadOptions, line func(text []byte, number int) error) (done int64, err error) {
	defer ingest.ExplainShrank(f, data, in.Name, &err)
	defer ingest.RecoverFault(in.Name, &err)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	_, textSize := bufferSizes(in.Total)
	pos, n, nextReport, dropped := 0, 0, 0, 0
	for pos < len(data) {
		window := data[pos:min(len(data), pos+maxLine+1)]
		end := bytes.IndexByte(window, '\n') + 1
		if end == 0 {
			end = len(window)
		}
		// Scan refuses a line at the buffer that takes it past maxLine,
		// before it grows for that buffer: it has gathered whole buffers
		// up to maxLine then, and weighed them.
		gathered := end
		if end > maxLine {
			gathered = maxLine / textSize * textSize
		}
		held, err := holdLongLine(gathered, textSize, opt)
		if err != nil {
			// Where the read outgrew the budget (budget.Named).
			return int64(pos), &errs.FormatError{File: in.Name, Line: n + 1, AtOffset: true, Offset: int64(pos), Err: err}
		}
		if end > maxLine {
			opt.Held(-held)
			// As Scan says it, which has read the line by buffers of
			// textSize when it gives up: to its end, or to the first
			// whole buffer past maxLine.
			rest := data[pos:min(len(data), pos+(maxLine/textSize+1)*textSize)]
			read := len(rest)
			if k := bytes.IndexByte(rest, '\n'); k >= 0 {
				read = k + 1
			}
			return int64(pos + read), LineTooLong(in.Name, n+1, int64(pos), int64(read))
		}
		n++
		err = line(window[:end], n)
		opt.Held(-held)
		if err != nil {
			return int64(pos + end), err
		}
		pos += end
		if pos >= nextReport {
			if err := opt.Canceled(); err != nil {
				return int64(pos), err
			}
			if opt.Progress != nil {
				opt.Progress(in.Before+int64(pos), in.Total)
			}
			nextReport = pos + ReportEvery
			if at := pos &^ (dropEvery - 1); at > dropped {
				ingest.DropPages(data[dropped:at])
				dropped = at
			}
		}
	}
	if opt.Progress != nil {
		opt.Progress(in.Before+int64(len(data)), in.Total)
	}
	return int64(len(data)), nil
}

// holdLongLine weighs a line of length bytes longer than textSize against
// the memory budget (opt.Held) as Scan weighs the buffer it gathers such a
// line in, growth by growth, and returns what it holds until the line has
// been handled. A mapped line is no copy, but its pages stay resident
// while it is handled and a reader's work on it grows with it (a Paraver
// record's fields): under a budget, the line Scan would refuse is refused.
func holdLongLine(length, textSize int, opt trace.ReadOptions) (held int64, err error) {
	gathered, capacity := textSize, textSize
	for gathered < length {
		chunk := min(textSize, length-gathered)
		if gathered+chunk > capacity {
			size := min(max(2*capacity, gathered+chunk), maxLine)
			if err := opt.Held(int64(size)); err != nil {
				opt.Held(-held - int64(size))
				return 0, err
			}
			opt.Held(-held)
			held, capacity = int64(size), size
		}
		gathered += chunk
	}
	return held, nil
}
