package paraver

import (
	"errors"
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Paraver's own reader reports a record it cannot use (a malformed line,
// an unknown record type, a resource the header does not declare, a
// negative time...) and goes on with the next one: a trace with a few
// damaged records still loads. The reader does the same: such records are
// skipped and counted in the notes by kind, with the first cause met, and
// only the header's errors refuse the file.

// badRecords counts the records of one kind that were skipped.
type badRecords struct {
	n     int64
	first string // the cause of the first one, with its line
}

// skipRecord handles err, met reading the record line: a FormatError of
// that line is counted and dropped; anything else is returned.
func (d *decoder) skipRecord(line []byte, err error) error {
	var fe *errs.FormatError
	if !errors.As(err, &fe) || fe.File != d.file || fe.Line != d.line {
		return err
	}
	kind := recordKind(line)
	if d.bad == nil {
		d.bad = map[string]*badRecords{}
	}
	b, ok := d.bad[kind]
	if !ok {
		b = &badRecords{first: fmt.Sprintf("line %d: %v", d.line, fe.Err)}
		d.bad[kind] = b
		d.badOrder = append(d.badOrder, kind)
	}
	b.n++
	return nil
}

// recordKind names the kind of a record line in the notes.
func recordKind(line []byte) string {
	if len(line) >= 2 && line[1] == ':' {
		switch line[0] {
		case '1':
			return "state records (1:)"
		case '2':
			return "event records (2:)"
		case '3':
			return "communication records (3:)"
		case '4':
			return "global operation records (4:)"
		}
	}
	return "lines that are not records"
}

// noteBadRecords reports the skipped records, once the input is read.
func (d *decoder) noteBadRecords() {
	for _, kind := range d.badOrder {
		b := d.bad[kind]
		d.opt.Skip(fmt.Sprintf("%s that Paraver's reader also rejects (first: %s)", kind, b.first), b.n)
	}
}
