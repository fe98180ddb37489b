package paje

import (
	"bytes"
	"io"
)

// cutDetector passes a file's text through and tells whether it ends
// inside a line: after its last '\n' comes something that is neither
// blank nor a comment. Pajé has no end marker, so a file cut in the
// middle of a line is told this way; the record the cut leaves may still
// parse (a time or a name shortened), and the trace would otherwise look
// whole.
type cutDetector struct {
	r        io.Reader
	nonBlank bool // the bytes after the last '\n' hold more than blanks
	comment  bool // ... and the first of them is '#'
}

func (c *cutDetector) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	tail := p[:n]
	if i := bytes.LastIndexByte(tail, '\n'); i >= 0 {
		c.nonBlank, c.comment = false, false
		tail = tail[i+1:]
	}
	if !c.nonBlank {
		c.nonBlank, c.comment = lineStart(tail)
	}
	return n, err
}

// cut tells whether the text read so far ends inside a record.
func (c *cutDetector) cut() bool { return c.nonBlank && !c.comment }

// lineStart tells whether text, the start of a line, holds more than
// blanks, and whether it is then a comment.
func lineStart(text []byte) (nonBlank, comment bool) {
	for _, b := range text {
		if b != ' ' && b != '\t' && b != '\r' {
			return true, b == '#'
		}
	}
	return false, false
}

// endsInsideLine tells whether tail, what follows the last '\n' of a
// whole file, is a record cut (see cutDetector).
func endsInsideLine(tail []byte) bool {
	nonBlank, comment := lineStart(tail)
	return nonBlank && !comment
}
