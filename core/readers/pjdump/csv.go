package pjdump

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"

	"github.com/macroscope-hpc/macroscope/core/swar"
)

// field is one comma-separated field, without surrounding blanks and
// quotes; quoted tells whether it was between double quotes.
type field struct {
	text   []byte
	quoted bool
}

// splitLine splits a pj_dump line. Fields are separated by commas (pj_dump
// writes ", "); a field that starts with a double quote runs to the next
// double quote and may hold commas. Fields alias line.
func splitLine(line []byte, out []field) ([]field, error) {
	if out, ok, _ := splitPlain(line, out[:0]); ok {
		return out, nil
	}
	return splitQuoted(line, out[:0])
}

// splitPlain splits a line without double quotes (most lines), finding its
// commas eight bytes at a time; plain is false for a line with a double
// quote, which splitQuoted reads. Its fields are those splitQuoted would
// find. ascii tells, when plain, whether every byte of the line is below
// 0x80 (then it is valid UTF-8). The bytes after the last whole word are
// taken as one word too: the line's last eight, shifted down past those
// already seen (zeros come in above them, neither commas nor quotes).
func splitPlain(line []byte, out []field) (fields []field, plain, ascii bool) {
	start := 0
	var high uint64
	for i := 0; i < len(line); i += 8 {
		var x uint64
		if n := len(line); i+8 <= n {
			x = binary.LittleEndian.Uint64(line[i : i+8])
		} else if n >= 8 {
			x = binary.LittleEndian.Uint64(line[n-8:n]) >> (8 * (i + 8 - n))
		} else {
			for k := n - 1; k >= i; k-- {
				x = x<<8 | uint64(line[k])
			}
		}
		high |= x
		if swar.Bytes(x, '"') != 0 {
			return out, false, false
		}
		for commas := swar.Bytes(x, ','); commas != 0; commas &= commas - 1 {
			at := i + bits.TrailingZeros64(commas)>>3
			// trimBlanks' test of a field after pj_dump's ", ", inline.
			f := line[start:at]
			if n := len(f); n > 1 && f[n-1] > ' ' && f[1] > ' ' && f[0] >= ' ' {
				if f[0] == ' ' {
					f = f[1:]
				}
			} else {
				f = trimAllBlanks(f)
			}
			out = append(out, field{text: f})
			start = at + 1
		}
	}
	return append(out, field{text: trimBlanks(line[start:])}), true, high&0x8080808080808080 == 0
}

// trimBlanks cuts the spaces and tabs around a field. A field whose
// second and last bytes are above the space, after one space (pj_dump's
// ", ") or none, is cut at once, in a function small enough to be
// inlined.
func trimBlanks(b []byte) []byte {
	if n := len(b); n > 1 && b[n-1] > ' ' && b[1] > ' ' && b[0] >= ' ' {
		if b[0] == ' ' {
			return b[1:]
		}
		return b
	}
	return trimAllBlanks(b)
}

// trimAllBlanks is trimBlanks for any field.
func trimAllBlanks(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	for j > i && (b[j-1] == ' ' || b[j-1] == '\t') {
		j--
	}
	return b[i:j]
}

// splitQuoted is splitLine for any line, quoted fields included, a byte
// at a time.
func splitQuoted(line []byte, out []field) ([]field, error) {
	i := 0
	for {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		var f field
		if i < len(line) && line[i] == '"' {
			end := bytes.IndexByte(line[i+1:], '"')
			if end < 0 {
				return out, errors.New("unterminated quoted field")
			}
			f = field{text: line[i+1 : i+1+end], quoted: true}
			i += end + 2
			for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
				i++
			}
			if i < len(line) && line[i] != ',' {
				return out, errors.New("text after a quoted field")
			}
		} else {
			start := i
			for i < len(line) && line[i] != ',' {
				i++
			}
			end := i
			for end > start && (line[end-1] == ' ' || line[end-1] == '\t') {
				end--
			}
			f = field{text: line[start:end]}
		}
		out = append(out, f)
		if i >= len(line) {
			return out, nil
		}
		i++ // the comma
	}
}

// Column roles, whatever the file calls them.
const (
	colNature = iota
	colParent
	colName
	colContainer
	colType
	colStart
	colEnd
	colDuration
	colDepth
	colValue
	colFrom
	colTo
	colKey
	colSize
	nCols
)

// columnNames maps the header names of pj_dump, pj_dump_csv and StarVZ to
// roles. Names not listed (StarVZ's Params, Footprint, JobId...) are
// ignored.
var columnNames = map[string]int{
	"Nature":         colNature,
	"Parent":         colParent,
	"Name":           colName,
	"Container":      colContainer,
	"ResourceId":     colContainer,
	"Type":           colType,
	"Start":          colStart,
	"Time":           colStart,
	"End":            colEnd,
	"Duration":       colDuration,
	"Imbrication":    colDepth,
	"Depth":          colDepth,
	"Value":          colValue,
	"StartContainer": colFrom,
	"Origin":         colFrom,
	"EndContainer":   colTo,
	"Dest":           colTo,
	"Key":            colKey,
	"Size":           colSize,
}

// layout gives the position of each role in a line, -1 when absent.
type layout [nCols]int

func newLayout(cols ...int) layout {
	var l layout
	for i := range l {
		l[i] = -1
	}
	for pos, c := range cols {
		l[c] = pos
	}
	return l
}

// natureName returns the nature a line's field names, as a constant for
// the five natures (no string is allocated for each line), a copy of the
// field otherwise.
func natureName(b []byte) string {
	switch string(b) {
	case "State":
		return "State"
	case "Variable":
		return "Variable"
	case "Link":
		return "Link"
	case "Event":
		return "Event"
	case "Container":
		return "Container"
	}
	return string(b)
}

// defaultLayout returns pj_dump's layout of the lines of a nature, not
// to be changed (not copied for each line, nor looked up in the map).
func defaultLayout(nature string) (*layout, bool) {
	switch nature {
	case "State":
		return &stateLayout, true
	case "Variable":
		return &variableLayout, true
	case "Link":
		return &linkLayout, true
	case "Event":
		return &eventLayout, true
	case "Container":
		return &containerLayout, true
	}
	return nil, false
}

var (
	stateLayout, variableLayout = defaultLayouts["State"], defaultLayouts["Variable"]
	linkLayout, eventLayout     = defaultLayouts["Link"], defaultLayouts["Event"]
	containerLayout             = defaultLayouts["Container"]
)

// stateFields is the number of fields of pj_dump's state lines.
const stateFields = 8

// requiredOf is required[nature], the common ones not looked up in the map.
func requiredOf(nature string) []int {
	switch nature {
	case "State":
		return requiredState
	case "Variable":
		return requiredVariable
	}
	return required[nature]
}

var requiredState, requiredVariable = required["State"], required["Variable"]

// The layouts of pj_dump's output, whose lines have no header.
var defaultLayouts = map[string]layout{
	"Container": newLayout(colNature, colParent, colType, colStart, colEnd, colDuration, colName),
	"State":     newLayout(colNature, colContainer, colType, colStart, colEnd, colDuration, colDepth, colValue),
	"Variable":  newLayout(colNature, colContainer, colType, colStart, colEnd, colDuration, colValue),
	"Event":     newLayout(colNature, colContainer, colType, colStart, colValue),
	"Link":      newLayout(colNature, colContainer, colType, colStart, colEnd, colDuration, colValue, colFrom, colTo, colKey),
}

// required lists the roles each kind of line must have.
var required = map[string][]int{
	"Container": {colParent, colType, colName},
	"State":     {colContainer, colType, colStart, colEnd, colValue},
	"Variable":  {colContainer, colType, colStart, colEnd, colValue},
	"Event":     {colContainer, colType, colStart, colValue},
	"Link":      {colContainer, colType, colStart, colEnd, colFrom, colTo},
	"hierarchy": {colParent, colName, colType, colNature},
}

// parseHeader reads a header line into a layout. It reports false when the
// line is data: a header names its columns, and its Start (or Time)
// column, which every header has in fourth place except the entity
// hierarchy's, is not a number.
func parseHeader(fields []field) (layout, bool) {
	l := newLayout()
	if len(fields) < 4 {
		return l, false
	}
	first, fourth := string(fields[0].text), string(fields[3].text)
	from := 0
	switch {
	case first == "Nature" || first == "Parent":
	case fourth == "Start" || fourth == "Time":
		// pj_dump_csv: "State, Container, Type, Start, ...", whose first
		// column holds the nature whatever its name.
		l[colNature] = 0
		from = 1
	default:
		return l, false
	}
	known := 0
	for pos := from; pos < len(fields); pos++ {
		f := fields[pos]
		if f.quoted {
			return l, false
		}
		if c, ok := columnNames[string(f.text)]; ok {
			if l[c] < 0 {
				l[c] = pos
			}
			known++
		}
	}
	return l, known >= 3
}

// extendLayout completes the layout of a pj_dump_csv header with the
// columns of pj_dump's layout for that nature that come after the last
// named one: pj_dump_csv names the link columns up to EndContainer, but
// its rows go on with the Key.
func extendLayout(l layout, nature string, named int) layout {
	def, ok := defaultLayouts[nature]
	if !ok {
		return l
	}
	for c, pos := range def {
		if pos >= 0 && pos < named && l[c] != pos {
			return l // the header is not pj_dump's: keep it as it is
		}
	}
	for c, pos := range def {
		if pos >= named && l[c] < 0 {
			l[c] = pos
		}
	}
	return l
}
