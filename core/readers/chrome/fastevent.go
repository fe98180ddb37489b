package chrome

import (
	"encoding/binary"
	"math"
	"strconv"
	"unicode/utf8"
)

// readEventFast reads the event object that starts at the scanner's
// position ('{') in one pass over the window, for the events most traces
// are made of: plain strings, numbers, no arguments to look into or keep.
// It reports false, consuming nothing, when the event does not lie whole
// in the window or holds anything else (escapes, null, args before ph, a
// trailing comma, an error...): readEvent then reads it, to the same
// result. The strings interned before it gives up are the ones readEvent
// interns first, in the same order, so ids are unchanged.
func (d *decoder) readEventFast(e *rawEvent) bool {
	s := d.sc
	b := s.buf[:s.end]
	i, lines, lenient := s.pos+1, 0, false
	argsAt := -1 // where the args of a complete event whose cat comes later start
	e.reset(s.line, s.offset())
	if i, lines = skipBlanks(b, i, lines); i >= len(b) {
		return false
	}
	if b[i] == '}' {
		s.pos = i + 1
		s.line += lines
		return true
	}
	for {
		key, j, ok := eventKey(b, i)
		if !ok {
			return false
		}
		if i = afterColon(b, j); i < 0 {
			if i, lines, ok = passColon(b, j, lines); !ok {
				return false
			}
		}
		if b[i] == 'n' {
			return false // null: readEvent takes it as absent
		}
		switch key {
		case keyPh:
			ph, j, ok := phase(b, i)
			if !ok {
				return false
			}
			e.ph, e.badPh, i = ph, none, j
		case keyName, keyCat, keyBp, keyS:
			v, j, ok := plainString(b, i)
			if !ok {
				return false
			}
			switch key {
			case keyName:
				e.name = d.strs.id(v)
			case keyCat:
				e.cat, e.gpuCat = d.strs.id(v), gpuCategory(v)
			case keyBp:
				e.bindEnclosing = string(v) == "e"
			default:
				if len(v) != 1 || (v[0] != 'g' && v[0] != 'p' && v[0] != 't') {
					e.scope = '?'
				} else {
					e.scope = v[0]
				}
			}
			i = j
		case keyPid, keyTid, keyID:
			var v []byte
			if b[i] == '"' {
				v, j, ok = plainString(b, i)
			} else if j, ok = shortNumberEnd(b, i); ok {
				v = b[i:j]
			} else {
				v, j, ok = plainNumber(b, i)
			}
			if !ok {
				return false
			}
			switch key {
			case keyPid:
				e.pid = d.strs.id(v)
			case keyTid:
				e.tid = d.strs.id(v)
			default:
				e.id, e.idLocal = d.strs.id(v), false
			}
			i = j
		case keyTs, keyDur:
			t, j, ok := microsFast(b, i)
			if !ok {
				var v []byte
				if v, j, ok = plainNumber(b, i); !ok {
					return false
				}
				var err error
				if t, err = parseMicros(v); err != nil {
					return false
				}
			}
			if key == keyTs {
				e.ts, e.hasTs = t, true
			} else {
				e.dur, e.hasDur = t, true
			}
			i = j
		case keyFlow:
			return false
		case keyArgs:
			// Only args the reader does not keep are read here.
			if e.ph == 0 {
				// Before ph (writers that sort the keys, as DevTools
				// does): passed over, then read at the end if ph tells
				// they matter, as readEvent reads the text it keeps.
				if argsAt >= 0 {
					return false
				}
				argsAt = i
				end, l, len, ok := skipFast(b, i, 1)
				if !ok {
					return false
				}
				i, lines, lenient = end, lines+l, lenient || len
				break
			}
			if d.profileArgs(e) || (d.keepArgs && keepsArgs(e.ph)) {
				return false
			}
			if e.ph == 'X' && e.cat == none {
				argsAt = i // read once the cat tells whether they matter
			}
			if e.parsesArgs() {
				end, l, len, ok := d.readArgsFast(e, b, i)
				if !ok {
					return false
				}
				i, lines, lenient = end, lines+l, lenient || len
				break
			}
			fallthrough
		default:
			end, l, len, ok := skipFast(b, i, 1)
			if !ok {
				return false
			}
			i, lines, lenient = end, lines+l, lenient || len
		}
		if k := afterComma(b, i); k >= 0 {
			i = k
			continue
		}
		if i, lines = skipBlanks(b, i, lines); i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			if i, lines = skipSpace(b, i+1, lines); i >= len(b) || b[i] != '"' {
				return false // a trailing comma, or damage
			}
			continue
		case '}':
			if argsAt >= 0 {
				if d.profileArgs(e) || d.keepArgs && keepsArgs(e.ph) {
					return false // args before ph, to be kept (or read as a CPU profile)
				}
				if e.parsesArgs() {
					if _, _, _, ok := d.readArgsFast(e, b, argsAt); !ok {
						return false
					}
				}
			}
			s.pos = i + 1
			s.line += lines
			s.lenient = s.lenient || lenient
			return true
		}
		return false
	}
}

// phase returns the character of the one-character string at b[i], as
// plainString reads it, and the index after it: an ASCII character other
// than a quote, a backslash or a control character. Any other string is
// not a phase readEventFast reads.
func phase(b []byte, i int) (byte, int, bool) {
	if i+3 > len(b) || b[i] != '"' || b[i+2] != '"' {
		return 0, 0, false
	}
	c := b[i+1]
	return c, i + 3, c >= 0x20 && c < 0x80 && c != '"' && c != '\\'
}

// afterColon returns the index of the value after the ':' at b[j], for
// the two layouts writers use, none or one space after it, if the value
// starts there; -1 otherwise, and then blanks are passed one by one.
func afterColon(b []byte, j int) int {
	if j+2 < len(b) && b[j] == ':' {
		if b[j+1] > ' ' {
			return j + 1
		}
		if b[j+1] == ' ' && b[j+2] > ' ' {
			return j + 2
		}
	}
	return -1
}

// passColon is afterColon's general case, blanks of any kind and number
// around the ':': it returns the index of the value and the lines passed,
// or false when the ':' is missing or the window ends first.
func passColon(b []byte, j, lines int) (int, int, bool) {
	i, lines := skipBlanks(b, j, lines)
	if i >= len(b) || b[i] != ':' {
		return 0, 0, false
	}
	if i, lines = skipSpace(b, i+1, lines); i >= len(b) {
		return 0, 0, false
	}
	return i, lines, true
}

// afterComma is afterColon for the ',' at b[i] before the next key: it
// returns the index of the key's quote.
func afterComma(b []byte, i int) int {
	if i+2 < len(b) && b[i] == ',' {
		if b[i+1] == '"' {
			return i + 1
		}
		if b[i+1] == ' ' && b[i+2] == '"' {
			return i + 2
		}
	}
	return -1
}

// fieldKey names the keys of an event object that readEventFast reads.
type fieldKey byte

const (
	keyOther fieldKey = iota // skipped
	keyPh
	keyName
	keyCat
	keyBp
	keyS
	keyPid
	keyTid
	keyID
	keyTs
	keyDur
	keyArgs
	keyFlow // id2, bind_id, flow_in, flow_out: left to readEvent
)

// The common keys with their quotes, as the little-endian words of their
// bytes (TestKeyWords checks them).
const (
	wordPh   = 0x22687022     // "ph"
	wordTs   = 0x22737422     // "ts"
	wordID   = 0x22646922     // "id"
	wordBp   = 0x22706222     // "bp"
	wordS    = 0x227322       // "s"
	wordPid  = 0x2264697022   // "pid"
	wordTid  = 0x2264697422   // "tid"
	wordCat  = 0x2274616322   // "cat"
	wordDur  = 0x2272756422   // "dur"
	wordName = 0x22656d616e22 // "name"
	wordArgs = 0x227367726122 // "args"
	wordTts  = 0x2273747422   // "tts" (Chrome's thread clock: skipped)
	wordTdur = 0x227275647422 // "tdur"
)

// eventKey reads the key string at b[i] of an event object, as
// plainString does, and names it: the common keys are told by their first
// letter, then by comparing the first bytes as one word with their quoted
// text; the others are read and compared as strings.
func eventKey(b []byte, i int) (fieldKey, int, bool) {
	if i+8 <= len(b) {
		w := binary.LittleEndian.Uint64(b[i : i+8])
		const four, five, six = 1<<32 - 1, 1<<40 - 1, 1<<48 - 1
		switch byte(w >> 8) { // a jump table
		case 'p':
			if w&four == wordPh {
				return keyPh, i + 4, true
			}
			if w&five == wordPid {
				return keyPid, i + 5, true
			}
		case 't':
			switch {
			case w&four == wordTs:
				return keyTs, i + 4, true
			case w&five == wordTid:
				return keyTid, i + 5, true
			case w&five == wordTts:
				return keyOther, i + 5, true
			case w&six == wordTdur:
				return keyOther, i + 6, true
			}
		case 'n':
			if w&six == wordName {
				return keyName, i + 6, true
			}
		case 'c':
			if w&five == wordCat {
				return keyCat, i + 5, true
			}
		case 'd':
			if w&five == wordDur {
				return keyDur, i + 5, true
			}
		case 'a':
			if w&six == wordArgs {
				return keyArgs, i + 6, true
			}
		case 'i':
			if w&four == wordID {
				return keyID, i + 4, true
			}
		case 'b':
			if w&four == wordBp {
				return keyBp, i + 4, true
			}
		case 's':
			if w&(1<<24-1) == wordS {
				return keyS, i + 3, true
			}
		}
	}
	key, j, ok := plainString(b, i)
	if !ok {
		return keyOther, 0, false
	}
	switch string(key) {
	case "ph":
		return keyPh, j, true
	case "name":
		return keyName, j, true
	case "cat":
		return keyCat, j, true
	case "bp":
		return keyBp, j, true
	case "s":
		return keyS, j, true
	case "pid":
		return keyPid, j, true
	case "tid":
		return keyTid, j, true
	case "id":
		return keyID, j, true
	case "ts":
		return keyTs, j, true
	case "dur":
		return keyDur, j, true
	case "args":
		return keyArgs, j, true
	case "id2", "bind_id", "flow_in", "flow_out":
		return keyFlow, j, true
	}
	return keyOther, j, true
}

// plainString returns the body of the string at b[i] if it holds no
// escape and no control character, and the index after it.
func plainString(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	from, wide := i+1, false
	for j := from; ; j++ {
		if j = plainRun(b, j); j >= len(b) {
			return nil, 0, false
		}
		switch c := b[j]; {
		case c == '"':
			if wide && !utf8.Valid(b[from:j]) {
				return nil, 0, false
			}
			return b[from:j], j + 1, true
		case c == '\\' || c < 0x20:
			return nil, 0, false
		case c >= 0x80:
			wide = true
		}
	}
}

// plainNumber returns the number token at b[i], if valid and followed by
// something other than the end of the window, and the index after it.
func plainNumber(b []byte, i int) (v []byte, j int, ok bool) {
	if j, ok = numberEnd(b, i); ok {
		v = b[i:j]
	}
	return v, j, ok
}

// readArgsFast reads the args object at b[i] of a metadata, counter or
// async step event, or of a GPU event, as readArgs does, if it lies whole in b and holds
// only plain strings, numbers and values it skips; it returns the index
// after it, the newlines passed and whether a value it skipped needed
// the lenient reading (a trailing comma...).
func (d *decoder) readArgsFast(e *rawEvent, b []byte, i int) (int, int, bool, bool) {
	lines, lenient := 0, false
	if b[i] != '{' {
		return 0, 0, false, false
	}
	if i, lines = skipBlanks(b, i+1, lines); i >= len(b) {
		return 0, 0, false, false
	}
	if b[i] == '}' {
		return i + 1, lines, lenient, true
	}
	for {
		key, j, ok := plainString(b, i)
		if !ok {
			return 0, 0, false, false
		}
		var counter int32
		if e.ph == 'C' {
			counter = d.strs.id(key)
		}
		if i = afterColon(b, j); i < 0 {
			if i, lines, ok = passColon(b, j, lines); !ok {
				return 0, 0, false, false
			}
		}
		c := b[i]
		skip := true
		if e.ph == 'X' {
			// A GPU event: only its integer correlation ids are read,
			// the other values passed over.
			if gpuArgKey(key) && (c == '-' || (c >= '0' && c <= '9')) {
				var v []byte
				if v, j, ok = plainNumber(b, i); !ok {
					return 0, 0, false, false
				}
				e.setGPUArg(key, v)
				skip = false
			}
		} else if skip, j, ok = d.readArgFast(e, key, counter, b, i); !ok {
			return 0, 0, false, false
		}
		switch {
		case !skip:
		case c == '-' || (c >= '0' && c <= '9'):
			// A number, what is passed over most (Kineto's ids,
			// streams, sizes): skipFast would find its end the same way.
			if j, ok = shortNumberEnd(b, i); !ok {
				if j, ok = numberEnd(b, i); !ok {
					return 0, 0, false, false
				}
			}
		default:
			end, l, len, ok := skipFast(b, i, 1)
			if !ok {
				return 0, 0, false, false
			}
			j, lines, lenient = end, lines+l, lenient || len
		}
		if k := afterComma(b, j); k >= 0 {
			i = k
			continue
		}
		if i, lines = skipBlanks(b, j, lines); i >= len(b) {
			return 0, 0, false, false
		}
		switch b[i] {
		case ',':
			if i, lines = skipSpace(b, i+1, lines); i >= len(b) || b[i] != '"' {
				return 0, 0, false, false // a trailing comma, or damage
			}
			continue
		case '}':
			return i + 1, lines, lenient, true
		}
		return 0, 0, false, false
	}
}

// readArgFast reads the value at b[i] of the argument key of a metadata,
// counter or async step event (counter is the key's id for a counter), as
// readArgs does: it returns whether the value is to be skipped instead,
// and otherwise the index after it.
func (d *decoder) readArgFast(e *rawEvent, key []byte, counter int32, b []byte, i int) (skip bool, j int, ok bool) {
	c := b[i]
	scalar := c == '"' || c == '-' || (c >= '0' && c <= '9')
	var v []byte
	if scalar {
		if c == '"' {
			v, j, ok = plainString(b, i)
		} else {
			v, j, ok = plainNumber(b, i)
		}
		if !ok {
			return false, 0, false
		}
	}
	skip = !scalar
	switch {
	case e.ph == 'C':
		if !scalar {
			e.badCounters++ // an object, a boolean, null: not a series
			break
		}
		x, err := strconv.ParseFloat(string(v), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			e.badCounters++
		} else {
			e.counters = append(e.counters, series{counter, x})
		}
	case string(key) == "name" || string(key) == "labels" || string(key) == "step":
		if c != '"' {
			skip = true // a name that is not a string does not name
			break
		}
		e.setNameArg(key[0], d.strs.id(v))
	case string(key) == "sort_index":
		if c == 'n' {
			break // null
		}
		if !scalar {
			e.badSortIndex = true
			break
		}
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			e.badSortIndex = true
		} else {
			e.sortIndex, e.hasSortIndex = n, true
		}
	default:
		skip = true
	}
	return skip, j, true
}
