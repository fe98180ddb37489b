// Package intern gives each distinct string a dense id, so that what a
// reader or an analysis keeps per event holds a 4-byte id instead of a
// string (a 16-byte header and its bytes), and names compare as integers.
package intern

// None marks an absent string; String(None) is "".
const None int32 = -1

// entryBytes is about what a string costs here besides its bytes: its
// header in the list and in the map, and the map's entry.
const entryBytes = 64

// Table interns strings: the n-th distinct string gets id n. The zero
// value is an empty table ready to use. A Table is not safe for
// concurrent use.
type Table struct {
	ids  map[string]int32
	strs []string
	// Keep, if set, returns the string String gives for a new one (a
	// copy into an arena, the text made valid UTF-8); the string as given
	// stays its key, so that the same bytes find the same id. The identity
	// by default.
	Keep  func(string) string
	bytes int64
}

// ID returns the id of s, giving it the next one if it is new.
func (t *Table) ID(s string) int32 {
	if id, ok := t.ids[s]; ok {
		return id
	}
	return t.add(s)
}

// IDBytes is ID of string(b), which it allocates only when b is new.
func (t *Table) IDBytes(b []byte) int32 {
	if id, ok := t.ids[string(b)]; ok { // the compiler does not allocate for the lookup
		return id
	}
	return t.add(string(b))
}

// Lookup returns the id of s, and whether it has one.
func (t *Table) Lookup(s string) (int32, bool) {
	id, ok := t.ids[s]
	return id, ok
}

// Append gives s the next id without entering it in the table's map: ID,
// IDBytes and Lookup do not find it. It serves a caller that indexes some
// strings itself (a reader that looks numbers up by value) and never asks
// the table for those; the ids stay dense and in order of first use.
func (t *Table) Append(s string) int32 {
	id := int32(len(t.strs))
	if t.Keep != nil {
		s = t.Keep(s)
	}
	t.strs = append(t.strs, s)
	t.bytes += int64(len(s)) + entryBytes
	return id
}

func (t *Table) add(s string) int32 {
	if t.ids == nil {
		t.ids = map[string]int32{}
	}
	id := int32(len(t.strs))
	t.ids[s] = id
	if t.Keep != nil {
		s = t.Keep(s)
	}
	t.strs = append(t.strs, s)
	t.bytes += int64(len(s)) + entryBytes
	return id
}

// String returns the string of id; "" for None.
func (t *Table) String(id int32) string {
	if id == None {
		return ""
	}
	return t.strs[id]
}

// Reset empties the table for reuse, keeping its memory.
func (t *Table) Reset() {
	clear(t.ids)
	t.strs, t.bytes = t.strs[:0], 0
}

// Len is the number of distinct strings.
func (t *Table) Len() int { return len(t.strs) }

// Strings lists the strings by id. The slice is the table's own: the
// caller must not change it.
func (t *Table) Strings() []string { return t.strs }

// Bytes is roughly the memory the table holds: the strings' bytes and
// their entries.
func (t *Table) Bytes() int64 { return t.bytes }
