package paje

import (
	"bytes"
	"errors"
)

// splitFields splits an event line into its whitespace-separated fields.
// A field that starts with a double quote runs to the next double quote and
// may contain blanks; the quotes are not part of the field. Fields alias
// line, which the caller must not modify while they are in use.
func splitFields(line []byte, fields [][]byte) ([][]byte, error) {
	fields = fields[:0]
	i := 0
	for {
		for i < len(line) && isBlank(line[i]) {
			i++
		}
		if i == len(line) {
			return fields, nil
		}
		if line[i] == '"' {
			end := bytes.IndexByte(line[i+1:], '"')
			if end < 0 {
				return fields, errors.New("unterminated quoted string")
			}
			fields = append(fields, line[i+1:i+1+end])
			i += end + 2
			if i < len(line) && !isBlank(line[i]) {
				return fields, errors.New("quoted string followed by text without a blank")
			}
			continue
		}
		start := i
		for i < len(line) && !isBlank(line[i]) {
			i++
		}
		fields = append(fields, line[start:i])
	}
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }
