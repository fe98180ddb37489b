package paje

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// defTable is an immutable snapshot of the event definitions, which the
// tokenizers read while the simulation goes on. The decoder publishes a
// new one whenever a definition opens or completes.
type defTable struct {
	ids    *idTable       // event id -> index into defs
	defs   []*eventDef    // completed definitions
	byChar [256]*eventDef // definitions whose id is one byte long, the most common
	open   bool           // a definition is being read: event lines are errors
}

func (t *defTable) lookup(id []byte) *eventDef {
	if len(id) == 1 {
		return t.byChar[id[0]]
	}
	if i, ok := t.ids.get(id); ok {
		return t.defs[i]
	}
	return nil
}

// record is an event line the tokenizer understood: its definition, its
// line (1-based, within the chunk), its fields (spans[first:first+n], n
// the definition's count plus the id) and its date if it has one.
type record struct {
	def   *eventDef
	at    trace.Time
	line  int32
	first int32 // where its fields are in the chunk's spans; if keyed, where its line is in the chunk's data
	// keys are the words (keyWord) of a state event's container, type
	// and value (0 without a value) when each is at most shortKey bytes
	// long, which is then all a lookup needs; keys[0] is 0 otherwise (see
	// keyed). The record then stands for its fields, which are not kept
	// (the simulation splits the line again in the rare case it needs
	// them), so that the tokenizers stream less memory through the caches
	// and the simulation reads one record of 48 bytes for an event.
	keys [3]uint64
}

// keyed tells whether the record holds a state event's keys rather than
// its fields: a key of a plain line is not empty, so its word is not 0.
func (r *record) keyed() bool { return r.keys[0] != 0 }

// tokenize splits a chunk of whole lines into records, as parseLine would,
// until the first line it cannot take without the simulation's state or
// that is wrong: a definition line, a line PajeNG refuses, a date that
// does not parse. It sets c.stop and c.stopLine there (or at the end), so
// that the decoder takes over line by line and reports errors itself.
func (c *chunk) tokenize() {
	if c.mapped {
		defer c.recoverFault()
	}
	c.recs, c.spans = c.recs[:0], c.spans[:0]
	data := c.data
	tab := c.tab
	c.stop, c.stopLine = 0, 0
	if tab.open || uint64(len(data)) > maxBuffer {
		return
	}
	maps := &c.maps
	if !maps.classify(data) {
		maps = nil
	}
	pos, line := 0, int32(0)
	for pos < len(data) {
		if maps != nil && splitStateLines {
			if pos, line = c.stateLines(tab, data, maps, pos, line); pos >= len(data) {
				break
			}
		}
		end, ok := c.plainLine(tab, data, maps, pos, line+1)
		if !ok {
			end = len(data)
			if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
				end = pos + i
			}
			if !c.tokenizeLine(tab, data, pos, end, line+1) {
				break
			}
		}
		line++
		pos = end + 1
	}
	c.stop, c.stopLine = min(pos, len(data)), line
}

// plainLine tokenizes the line at data[pos:] if plainFields takes it and
// its record is simple, and returns where the line ends. maps, if not
// nil, classifies data: bitFields then splits the line.
func (c *chunk) plainLine(tab *defTable, data []byte, maps *bitmaps, pos int, line int32) (int, bool) {
	first := len(c.spans)
	var spans []span
	var end int
	var ok bool
	if maps != nil {
		spans, end, ok = bitFields(data, maps, pos, c.spans)
	} else {
		spans, end, ok = plainFields(data, pos, c.spans)
	}
	if !ok {
		return 0, false
	}
	fields := spans[first:]
	if len(fields) == 0 {
		return end, true // blank
	}
	id := data[fields[0].from:fields[0].to]
	def := tab.lookup(id)
	if def == nil || len(fields)-1 != len(def.roles) || id[0] == '%' {
		return 0, false
	}
	r := record{def: def, line: line, first: int32(first)}
	if col := def.column[roleTime]; col >= 0 {
		f := fields[1+col]
		t, err := parseDate(data[f.from:f.to])
		if err != nil {
			return 0, false
		}
		r.at = t
	}
	if !def.stateKeys || !r.setStateKeys(def, data, fields[1:]) {
		def.hashKeys(data, fields[1:])
	}
	if r.keyed() {
		r.first = int32(pos)
		c.spans = spans[:first]
	} else {
		c.spans = spans
	}
	c.recs = append(c.recs, r)
	return end, true
}

// splitStateLines lets tokenize take state lines through stateLines: the
// tests turn it off to compare with plainLine.
var splitStateLines = true

// maxStateLineFields bounds the fields (the event id included) of the
// lines stateLines splits.
const maxStateLineFields = 8

// stateLines tokenizes the lines from data[pos:] on as plainLine would, as
// long as each is the most common line: a state event whose definition
// allows it (eventDef.stateLine), at most 64 bytes long with its '\n', on
// a classified chunk, whose keys are short (setStateKeys) and whose date
// parses. It finds a line's fields in one 64-bit window of the bitmaps,
// reads the date and the keys from there, and appends the keyed record,
// without storing the fields; it returns where it stopped, at the first
// line it does not take (or the end of data), and the lines before it.
// One loop over the lines, rather than a call for each: Go keeps no value
// in a register across a call, and the spills and reloads around
// plainLine's calls cost about as much as the work (BenchmarkTokenize:
// 570 MB/s per core through plainLine, about 900 through stateLines).
func (c *chunk) stateLines(tab *defTable, data []byte, m *bitmaps, pos int, line int32) (int, int32) {
	spaces, odds := m.spaces, m.odds
	var def *eventDef
	lastID, packed := byte(0), uint(0) // def's id if one byte long (0 if none), and 8 times its fields after the id
	for pos+64 <= len(data) {
		w, s := pos>>6, uint(pos&63)
		if w+1 >= len(spaces) || w+1 >= len(odds) {
			break
		}
		// The 64 bytes from pos on (a shift by 64 gives 0).
		odd := odds[w]>>s | odds[w+1]<<(64-s)
		if odd == 0 {
			break
		}
		j := uint(bits.TrailingZeros64(odd))
		end := pos + int(j)
		if data[end] != '\n' {
			break
		}
		// The '\n' and what follows are spaces, and so is the byte before
		// the line: a field starts at a non-space after a space and ends
		// at a space after a non-space.
		space := spaces[w]>>s | spaces[w+1]<<(64-s) | ^uint64(0)<<j
		before := space<<1 | 1
		starts, ends := ^space&before, space&^before
		if starts == 0 {
			break // blank: rare
		}
		idFrom, idTo := pos+bits.TrailingZeros64(starts), pos+bits.TrailingZeros64(ends)
		// Runs of lines of one event are common: the last definition is
		// kept, by its id if it is one byte long.
		if idTo-idFrom != 1 || data[idFrom] != lastID {
			def = tab.lookup(data[idFrom:idTo])
			if def == nil || !def.stateLine || data[idFrom] == '%' {
				break
			}
			lastID, packed = 0, uint(8*len(def.roles))
			if idTo-idFrom == 1 {
				lastID = data[idFrom]
			}
		}
		// Where each field after the id starts and ends, from pos (at
		// most 63), a byte each; then whether they are the definition's
		// count (a count of starts before the loop, with bits.OnesCount64,
		// cost more: a test of the processor's POPCNT each line, and
		// registers the loop then lacked).
		starts, ends = starts&(starts-1), ends&(ends-1)
		var from, to uint64
		k := uint(0)
		for ; starts != 0 && k < 64; k += 8 {
			from |= uint64(bits.TrailingZeros64(starts)) << k
			to |= uint64(bits.TrailingZeros64(ends)) << k
			starts, ends = starts&(starts-1), ends&(ends-1)
		}
		if starts != 0 || k != packed {
			break
		}
		line64 := data[pos : pos+64]
		k0 := stateKey(line64, from, to, def.stateShift[0])
		k1 := stateKey(line64, from, to, def.stateShift[1])
		k2 := stateKey(line64, from, to, def.stateShift[2])
		if k0 == badKey || k1 == badKey || k2 == badKey {
			break
		}
		// The date: its common form (nineDecimals), parseDate
		// otherwise.
		sh := def.timeShift & 63 // below 64 (see stateKey)
		date := line64[uint8(from>>sh):uint8(to>>sh)]
		at, ok := nineDecimals(date)
		if !ok {
			var err error
			if at, err = parseDate(date); err != nil {
				break
			}
		}
		line++
		// The record is written in place, a word at a time: one built
		// on the stack would be copied sixteen bytes at a time, loads
		// that wait for the eight-byte stores that built it.
		n := len(c.recs)
		if n == cap(c.recs) {
			c.recs = append(c.recs, record{})
		}
		c.recs = c.recs[:n+1]
		r := &c.recs[n]
		r.def, r.at, r.line, r.first = def, at, line, int32(pos)
		r.keys[0], r.keys[1], r.keys[2] = k0, k1, k2
		pos = end + 1
	}
	return pos, line
}

// stateKey returns the key word (keyWord) of the field of a line whose
// offsets from and to give, a byte a field, at shift sh (noStateField:
// no field, the word 0); badKey if the key is too long for a word, or too
// close to the end of the line's 64 bytes for a load of eight. (A word
// and a bool, for three keys, made the compiler keep the bools on the
// stack and branch around them.)
func stateKey(line64 []byte, from, to uint64, sh uint) uint64 {
	if sh == noStateField {
		return 0
	}
	// The shifts are masked to 63, which they are below: a shift the
	// compiler cannot tell is below 64 costs three instructions more,
	// those that give 0 past it.
	f, t := uint8(from>>(sh&63)), uint8(to>>(sh&63))
	n := t - f
	if n > shortKey || f > 56 {
		return badKey
	}
	return keyWord(binary.LittleEndian.Uint64(line64[f:])&keyMasks[n&7], int(n))
}

// keyMasks[n] keeps the first n bytes of a little-endian word: a load
// where the mask computed from n took four instructions.
var keyMasks = [8]uint64{0, 1<<8 - 1, 1<<16 - 1, 1<<24 - 1, 1<<32 - 1, 1<<40 - 1, 1<<48 - 1, 1<<56 - 1}

// badKey is stateKey's answer for a key it cannot read: no keyWord, whose
// top byte is a length of at most shortKey.
const badKey = ^uint64(0)

// setStateKeys sets the record's keys to the words of a state event's
// container, type and value if they are all short, and reports whether
// it did: read from the line's bytes, without hashKeys (the record then
// stands for the fields).
func (r *record) setStateKeys(def *eventDef, data []byte, fields []span) bool {
	var keys [3]uint64
	for k, col := range def.stateCols {
		if col < 0 {
			continue
		}
		f := &fields[col]
		n := f.to - f.from
		if n > shortKey || int(f.from)+8 > len(data) {
			return false
		}
		// One load, masked to the key's bytes.
		keys[k] = keyWord(binary.LittleEndian.Uint64(data[f.from:])&(1<<(8*n)-1), int(n))
	}
	r.keys = keys
	return true
}

// plainFields splits the line at data[pos:] at its spaces, if it is made
// of spaces and of printable ASCII characters other than '"' and '#' (most
// event lines are): then its fields are those appendFields would find. It
// returns where the line ends (its '\n', or the end of data). It looks at
// eight bytes at a time, finding fields and the '\n' in the same pass, and
// gives up (false) on any other line.
func plainFields(data []byte, pos int, spans []span) ([]span, int, bool) {
	const ones, highs, lows = 0x0101010101010101, 0x8080808080808080, 0x7f7f7f7f7f7f7f7f
	open := len(spans)        // the first field not ended yet
	prevSpace := uint64(0x80) // the byte before the line counts as a space
	end := -1
	for i := pos; end < 0; i += 8 {
		var x uint64
		if i+8 <= len(data) {
			x = binary.LittleEndian.Uint64(data[i:])
		} else {
			// The end of the input reads as a '\n'.
			for k := len(data) - 1; k >= i; k-- {
				x = x<<8 | uint64(data[k])
			}
			beyond := ^uint64(0) << (8 * uint(len(data)-i))
			x = x&^beyond | '\n'*ones&beyond
		}
		// High bit of each byte: a space; below '$' (so '\n', '"', '#',
		// controls and tabs, and '!' too, rare enough); from 0x80 up.
		t := x ^ ' '*ones
		space := ^((t&lows + lows) | t) & highs
		below := ^((x&lows + (0x80-'$')*ones) | x) & highs
		if odd := below&^space | x&highs; odd != 0 {
			j := uint(bits.TrailingZeros64(odd)) &^ 7
			if byte(x>>j) != '\n' {
				return spans, 0, false
			}
			end = i + int(j>>3)
			space |= highs &^ (1<<j - 1) // the '\n' and beyond end fields
		}
		// A field starts at a non-space after a space, and ends at a space
		// after a non-space. Starts and ends alternate, so the k-th end
		// closes the k-th field.
		before := space<<8 | prevSpace
		prevSpace = space >> 56
		for starts := ^space & highs & before; starts != 0; starts &= starts - 1 {
			spans = append(spans, span{from: uint32(i + bits.TrailingZeros64(starts)>>3)})
		}
		for ends := space &^ before; ends != 0; ends &= ends - 1 {
			spans[open].to = uint32(i + bits.TrailingZeros64(ends)>>3)
			open++
		}
	}
	return spans, end, true
}

// tokenizeLine reads the line data[pos:end] that plainLine did not take;
// false means the line needs the line-by-line path.
func (c *chunk) tokenizeLine(tab *defTable, data []byte, pos, end int, line int32) bool {
	i := pos
	for i < end && blank[data[i]] {
		i++
	}
	if i == end || data[i] == '#' {
		return true // blank or comment
	}
	if data[i] == '%' || !isText(data[pos:end]) {
		return false
	}
	first := len(c.spans)
	spans, err := appendFields(data, i, end, c.spans)
	if err != nil {
		return false
	}
	fields := spans[first:]
	id := data[fields[0].from:fields[0].to]
	def := tab.lookup(id)
	if def == nil || len(fields)-1 != len(def.roles) {
		return false
	}
	r := record{def: def, line: line, first: int32(first)}
	if col := def.column[roleTime]; col >= 0 {
		f := fields[1+col]
		t, err := parseDate(data[f.from:f.to])
		if err != nil {
			return false
		}
		r.at = t
	}
	def.hashKeys(data, fields[1:])
	c.spans = spans
	c.recs = append(c.recs, r)
	return true
}

// isText tells whether a line is valid UTF-8, looking eight bytes at a
// time for the common case of pure ASCII.
func isText(b []byte) bool {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 != 0 {
			return utf8.Valid(b)
		}
	}
	for ; i < len(b); i++ {
		if b[i] >= 0x80 {
			return utf8.Valid(b)
		}
	}
	return true
}
