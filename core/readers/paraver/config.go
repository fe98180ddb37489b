package paraver

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// config holds the names a trace's companion files give: the .pcf names
// states, event types and event values; the .row names the resources
// (applications, tasks, threads, nodes, CPUs). A zero config names nothing,
// and the reader falls back on numbers.
type config struct {
	states     map[int64]named
	eventTypes map[int64]*eventType
	levels     map[string][]string // by level: APPL, TASK, THREAD, NODE, CPU...

	// rowFile and levelLine place each level's "LEVEL" line, for the
	// warning given when the trace declares another number of resources.
	rowFile   string
	levelLine map[string]int
	// remarks counts what the .pcf holds that Paraver accepts but that is
	// likely a mistake (a state named twice, a negative state), by kind,
	// in remarkOrder; the reader words them in the notes.
	remarks     map[string]*remark
	remarkOrder []string
}

// remark counts one kind of doubtful .pcf line, with the first one met.
type remark struct {
	n     int64
	first string // "file:line: what"
}

// remark counts a doubtful line of kind, worded by format if it is the
// first of its kind.
func (cfg *config) remark(l *lineReader, kind, format string, args ...any) {
	if cfg.remarks == nil {
		cfg.remarks = map[string]*remark{}
	}
	r, ok := cfg.remarks[kind]
	if !ok {
		r = &remark{first: fmt.Sprintf("%s:%d: ", l.file, l.line) + fmt.Sprintf(format, args...)}
		cfg.remarks[kind] = r
		cfg.remarkOrder = append(cfg.remarkOrder, kind)
	}
	r.n++
}

type named struct{ name, color string }

type eventType struct {
	name   string
	values map[eventValue]string
}

// configPaths returns the .pcf and .row files that go with the trace at
// path: x.prv and x.prv.gz (.bz2, .zst) go with x.pcf and x.row.
func configPaths(path string) (pcf, row string) {
	base := strings.TrimSuffix(ingest.StripCompressed(path), ".prv")
	return base + ".pcf", base + ".row"
}

// loadConfig reads a .pcf and a .row file; an empty path, or a file that
// does not exist, is skipped.
func loadConfig(pcfPath, rowPath string) (*config, error) {
	cfg := &config{states: map[int64]named{}, eventTypes: map[int64]*eventType{}, levels: map[string][]string{}, levelLine: map[string]int{}}
	for _, f := range []struct {
		path  string
		parse func(*config, *lineReader) error
	}{{pcfPath, (*config).parsePCF}, {rowPath, (*config).parseRow}} {
		if f.path == "" {
			continue
		}
		// Beside the trace: a link leading elsewhere, a FIFO, are refused.
		file, err := ingest.OpenIn(filepath.Dir(f.path), f.path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		err = f.parse(cfg, &lineReader{file: f.path, r: bufio.NewReader(file)})
		file.Close()
		if err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// lineReader yields the lines of a companion file with their numbers.
type lineReader struct {
	file string
	r    *bufio.Reader
	line int
}

// next returns the next line without its end of line; ok is false at the
// end of the file.
func (l *lineReader) next() (string, bool, error) {
	s, err := l.r.ReadString('\n')
	if err != nil && err != io.EOF {
		return "", false, &errs.FormatError{File: l.file, Line: l.line + 1, Err: err}
	}
	if s == "" && err == io.EOF {
		return "", false, nil
	}
	l.line++
	if !utf8.ValidString(s) {
		return "", false, l.fail("line is not valid UTF-8")
	}
	return strings.TrimRight(s, "\r\n"), true, nil
}

func (l *lineReader) fail(format string, args ...any) error {
	return errs.Format(l.file, l.line, format, args...)
}

// isKeyword tells whether a .pcf line opens a section (STATES,
// EVENT_TYPE...).
func isKeyword(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if (c < 'A' || c > 'Z') && c != '_' {
			return false
		}
	}
	return true
}

// parsePCF reads the sections STATES ("id name"), STATES_COLOR
// ("id {r,g,b}"), EVENT_TYPE ("gradient id name", several types may share
// a block) and VALUES ("value name", for the types of the block before).
// Other sections (DEFAULT_OPTIONS, GRADIENT_COLOR...) are display settings
// and are skipped.
func (cfg *config) parsePCF(l *lineReader) error {
	section := ""
	var block []*eventType // types of the current EVENT_TYPE block
	var blockIDs []int64   // and their ids
	// The line that first named, or colored, each state: Paraver keeps
	// the last one given (a map assignment), and so does the reader, but
	// a state given twice is said.
	namedAt, coloredAt := map[int64]int{}, map[int64]int{}
	// The same for event types (by a type's id: the line and name it was
	// first given) and their values (by type and value: the line that
	// named it). Paraver keeps a type's last name, and gathers its values
	// from all its blocks, each value with its last name.
	typeAt := map[int64]typeLine{}
	valueAt := map[typeValue]int{}
	for {
		line, ok, err := l.next()
		if err != nil || !ok {
			return err
		}
		text := strings.TrimSpace(line)
		if strings.HasPrefix(text, "#") {
			// A comment: Paraver's .pcf parser skips a line starting
			// with '#' (after its blanks), in any section. ExtraeWin
			// writes one before each EVENT_TYPE block (the source line
			// that defines the type).
			continue
		}
		if isKeyword(text) {
			section = text
			if section == "EVENT_TYPE" {
				block, blockIDs = block[:0], blockIDs[:0]
			}
			continue
		}
		if text == "" {
			continue
		}
		switch section {
		case "STATES", "STATES_COLOR":
			id, rest, err := leadingInt(text)
			if errors.Is(err, strconv.ErrRange) {
				cfg.tooLarge(l, section, "state", text)
				continue
			}
			if err != nil {
				return l.fail("%s: %v", section, err)
			}
			if id < 0 {
				// Paraver reads states as unsigned 32-bit numbers: it
				// would show this one as 2^32+id (or drop it, below
				// -2^31). Records with the same negative state are
				// named by it here.
				cfg.remark(l, "negative states", "%s: state %d is negative, which Paraver reads as an unsigned number", section, id)
			}
			seen := namedAt
			if section == "STATES_COLOR" {
				seen = coloredAt
			}
			if first, ok := seen[id]; ok {
				cfg.remark(l, section+" given twice", "%s: state %d is given again (first at line %d); the last one is kept, as Paraver keeps it", section, id, first)
			} else {
				seen[id] = l.line
			}
			st := cfg.states[id]
			if section == "STATES" {
				st.name = rest
			} else if st.color, err = parseColor(rest); err != nil {
				return l.fail("STATES_COLOR: %v", err)
			}
			cfg.states[id] = st
		case "EVENT_TYPE":
			fields := strings.Fields(text)
			if len(fields) < 2 {
				return l.fail("EVENT_TYPE: expected a gradient, a type and a name")
			}
			id, err := strconv.ParseInt(fields[1], 10, 64)
			if errors.Is(err, strconv.ErrRange) {
				cfg.tooLarge(l, section, "event type", fields[1])
				continue
			}
			if err != nil {
				return l.fail("EVENT_TYPE: bad event type %s", errs.Quote(fields[1]))
			}
			_, name, _ := strings.Cut(strings.TrimSpace(text[len(fields[0]):]), fields[1])
			et := &eventType{name: strings.TrimSpace(name), values: map[eventValue]string{}}
			if old := cfg.eventTypes[id]; old != nil {
				et.values = old.values // a type declared twice keeps its values
				// Extrae repeats a hardware counter's type in each
				// counter set, under the same name: only another name
				// is said.
				if first := typeAt[id]; first.name != et.name {
					cfg.remark(l, "event types renamed", "EVENT_TYPE: event type %d is given again with another name, %s (%s at line %d); the last name is kept, as Paraver keeps it",
						id, errs.Quote(et.name), errs.Quote(first.name), first.line)
				}
			}
			typeAt[id] = typeLine{line: l.line, name: et.name}
			cfg.eventTypes[id] = et
			block, blockIDs = append(block, et), append(blockIDs, id)
		case "VALUES":
			num, name := text, ""
			if i := strings.IndexAny(text, " \t"); i >= 0 {
				num, name = text[:i], text[i+1:]
			}
			if len(block) == 0 {
				return l.fail("VALUES without an EVENT_TYPE before it")
			}
			v, err := parseEventValue([]byte(num))
			if err != nil && integer(num) {
				cfg.tooLarge(l, section, "event value", num)
				continue
			}
			if err != nil {
				return l.fail("VALUES: %v", err)
			}
			name = strings.TrimSpace(name)
			said := false // one remark a line, for the first type of the block it renames
			for i, et := range block {
				key := typeValue{blockIDs[i], v}
				old, ok := et.values[v]
				if ok && old != name && !said {
					cfg.remark(l, "event values renamed", "VALUES: value %s of event type %d is given again with another name, %s (%s at line %d); the last name is kept, as Paraver keeps it",
						v, key.typ, errs.Quote(name), errs.Quote(old), valueAt[key])
					said = true
				}
				if !ok || old != name {
					valueAt[key] = l.line
				}
				et.values[v] = name
			}
		}
	}
}

// typeLine is where an event type was last named, and the name.
type typeLine struct {
	line int
	name string
}

// typeValue is a value of an event type (by its id).
type typeValue struct {
	typ int64
	v   eventValue
}

// integer tells whether s is an integer: digits, after a minus sign or
// not.
func integer(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// tooLarge says (once for all such lines) that a .pcf line gives a
// number (field, the text s) beyond 64 bits, and is skipped: no record
// can carry it (the reader skips a record whose field is beyond 64 bits,
// as Paraver's does), and Paraver drops the line (it reads these numbers
// with stoi, as 32-bit ones).
func (cfg *config) tooLarge(l *lineReader, section, field, s string) {
	num, _, _ := strings.Cut(s, " ")
	num, _, _ = strings.Cut(num, "\t")
	cfg.remark(l, "numbers beyond 64 bits", "%s: the %s %s is beyond 64 bits: the line is skipped, as no record can carry it", section, field, errs.Quote(num))
}

// leadingInt splits "12   some name" into 12 and "some name".
func leadingInt(s string) (int64, string, error) {
	num, rest := s, ""
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		num, rest = s[:i], s[i+1:]
	}
	v, err := strconv.ParseInt(num, 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, "", err
	}
	if err != nil {
		return 0, "", fmt.Errorf("expected a number at the start of %s", errs.Quote(s))
	}
	return v, strings.TrimSpace(rest), nil
}

// parseColor turns "{117,195,255}" into Pajé's "r g b" in [0, 1].
func parseColor(s string) (string, error) {
	inner, opened := strings.CutPrefix(s, "{")
	inner, closed := strings.CutSuffix(inner, "}")
	if !opened || !closed {
		return "", fmt.Errorf("color %s is not {r,g,b}", errs.Quote(s))
	}
	parts := strings.Split(inner, ",")
	if len(parts) != 3 {
		return "", fmt.Errorf("color %s is not {r,g,b}", errs.Quote(s))
	}
	out := make([]string, 3)
	for i, p := range parts {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v < 0 || v > 255 {
			return "", fmt.Errorf("color %s: component %s is not in 0..255", errs.Quote(s), errs.Quote(p))
		}
		out[i] = strconv.FormatFloat(float64(v)/255, 'g', 6, 64)
	}
	return strings.Join(out, " "), nil
}

// parseRow reads "LEVEL <name> SIZE <n>" lines, each followed by n names.
func (cfg *config) parseRow(l *lineReader) error {
	for {
		line, ok, err := l.next()
		if err != nil || !ok {
			return err
		}
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			// Paraver's .row parser skips empty lines and comments
			// (a '#' in the first column) between levels.
			continue
		}
		line0 := l.line
		f := strings.Fields(line)
		if len(f) != 4 || f[0] != "LEVEL" || f[2] != "SIZE" {
			return l.fail(`expected "LEVEL <name> SIZE <n>", found %s`, errs.Quote(line))
		}
		n, err := strconv.Atoi(f[3])
		if err != nil || n < 0 || n > maxResources {
			return l.fail("bad size %s", errs.Quote(f[3]))
		}
		names := make([]string, 0, n)
		for range n {
			name, ok, err := l.next()
			if err != nil {
				return err
			}
			if !ok {
				return l.fail("LEVEL %s declares %d names, the file ends after %d", f[1], n, len(names))
			}
			names = append(names, strings.TrimSpace(name))
		}
		cfg.levels[f[1]] = names
		cfg.rowFile, cfg.levelLine[f[1]] = l.file, line0
	}
}

// checkLevel says, in the notes, when the .row names another number of
// resources at a level than the trace has (have): Paraver names those it
// lacks by their numbers, and ignores the names left over, so the reader
// does the same, but says it. A level the .row does not give is not a
// disagreement.
func (cfg *config) checkLevel(opt trace.ReadOptions, level string, have int) {
	if cfg == nil {
		return
	}
	names, ok := cfg.levels[level]
	if !ok || len(names) == have {
		return
	}
	where := fmt.Sprintf("%s:%d", cfg.rowFile, cfg.levelLine[level])
	if len(names) < have {
		opt.Warn("%s: LEVEL %s names %d resources, the trace has %d: the last %d keep their default names, as Paraver names them", where, level, len(names), have, have-len(names))
		return
	}
	opt.Warn("%s: LEVEL %s names %d resources, the trace has %d: the last %d names are unused, as in Paraver", where, level, len(names), have, len(names)-have)
}

// noteRemarks words the doubtful .pcf lines in the notes.
func (cfg *config) noteRemarks(opt trace.ReadOptions) {
	for _, kind := range cfg.remarkOrder {
		r := cfg.remarks[kind]
		if r.n == 1 {
			opt.Warn("%s", r.first)
		} else {
			opt.Warn("%s (%d such lines in all)", r.first, r.n)
		}
	}
}

// level returns the i-th (0-based) name of a .row level, if it has one.
func (cfg *config) level(name string, i int) (string, bool) {
	if cfg == nil {
		return "", false
	}
	names := cfg.levels[name]
	if i < len(names) {
		return names[i], true
	}
	return "", false
}
