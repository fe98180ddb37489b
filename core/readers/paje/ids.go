package paje

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"unsafe"
)

// idTable maps identifiers (of types, containers, values, event
// definitions) to indices. It replaces a map[string]int32 on the path
// every event takes: lookups take the []byte of a field without
// converting it, and may come with the key's hash, which the tokenizers
// compute in parallel. The table only grows: the identifiers of a Pajé
// trace are never forgotten.
type idTable struct {
	slots []idSlot // open addressing, linear probing; a power of two long
	keys  []string // the key of each slot
	shift uint     // 64 - log2(len(slots)): a hash's top bits pick its slot
	n     int
}

// idSlot is what a lookup reads of a slot, in 16 bytes: a table of a few
// hundred containers stays in a few kilobytes of cache, though the
// tokenizers stream megabytes through it between two lookups. The key
// itself, in keys, is read only for long keys.
type idSlot struct {
	hash uint64
	id   int32
	n    uint8 // the key's length, at most 255
	full bool
}

func newIDTable() *idTable {
	return &idTable{slots: make([]idSlot, 16), keys: make([]string, 16), shift: 64 - 4}
}

// hashSeed makes the hashes differ from one process to the next, so that
// no input can be crafted to make lookups slow.
var hashSeed = uint64(maphash.Comparable(maphash.MakeSeed(), 0))

// shortKey is the length up to which hashKey is one to one: two keys that
// short have the same hash only if they are equal, so lookups compare
// hashes and lengths, not bytes.
const shortKey = 7

// hashKey hashes an identifier. Most are short: their bytes and length
// make a 64-bit word, multiplied by an odd constant (one to one). Longer
// ones are mixed eight bytes at a time.
func hashKey(b []byte) uint64 {
	n := len(b)
	var x uint64
	switch {
	case n > shortKey:
		return hashLong(b)
	case n >= 4:
		// Two loads that overlap rebuild the n bytes exactly.
		x = uint64(binary.LittleEndian.Uint32(b)) | uint64(binary.LittleEndian.Uint32(b[n-4:]))<<(8*(n-4))
	case n > 0:
		x = uint64(b[0]) | uint64(b[n/2])<<(8*(n/2)) | uint64(b[n-1])<<(8*(n-1))
	}
	return shortHash(x, n)
}

// shortHash hashes the key of n <= shortKey bytes whose little-endian word
// is x: one to one, as the length fills the top byte.
func shortHash(x uint64, n int) uint64 { return wordHash(keyWord(x, n)) }

// keyWord is the word of a key of n <= shortKey bytes whose little-endian
// word is x: its bytes, and its length in the top byte. It tells the key.
func keyWord(x uint64, n int) uint64 { return x | uint64(n)<<56 }

// wordHash is the hash of the key whose keyWord is w.
func wordHash(w uint64) uint64 { return (w ^ hashSeed) * 0x9e3779b97f4a7c15 }

func hashLong(b []byte) uint64 {
	n := len(b)
	h := hashSeed ^ uint64(n)*0x9e3779b97f4a7c15
	for i := 0; i+8 < n; i += 8 {
		h = bits.RotateLeft64((h^binary.LittleEndian.Uint64(b[i:]))*0xbf58476d1ce4e5b9, 29)
	}
	h = (h ^ binary.LittleEndian.Uint64(b[n-8:])) * 0x94d049bb133111eb // may overlap: fine
	return h ^ h>>29
}

// get returns the index filed under key. A nil table is empty.
func (t *idTable) get(key []byte) (int32, bool) {
	if t == nil {
		return 0, false
	}
	return t.getHashed(key, hashKey(key))
}

// getHashed is get for a key whose hashKey is h.
func (t *idTable) getHashed(key []byte, h uint64) (int32, bool) {
	if t == nil {
		return 0, false
	}
	mask := uint64(len(t.slots) - 1)
	for i := h >> t.shift; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if !s.full {
			return 0, false
		}
		if s.hash == h && int(s.n) == min(len(key), 255) && (len(key) <= shortKey || t.keys[i] == string(key)) {
			return s.id, true
		}
	}
}

// getWord is get for a key of at most shortKey bytes whose keyWord is w:
// the hash and the length tell the key.
func (t *idTable) getWord(w uint64) (int32, bool) {
	if t == nil {
		return 0, false
	}
	// Small enough to be inlined (the lookups of a state event's
	// container and value are on the path of every state event).
	h := wordHash(w)
	for i := h >> t.shift; ; i = (i + 1) & uint64(len(t.slots)-1) {
		s := &t.slots[i]
		if !s.full {
			return 0, false
		}
		if s.hash == h && s.n == uint8(w>>56) {
			return s.id, true
		}
	}
}

// bytes is what the table's slots and keys hold (not the keys' strings),
// for the read's memory budget (simulator.weigh).
func (t *idTable) bytes() int64 {
	return int64(len(t.slots))*int64(unsafe.Sizeof(idSlot{})) + int64(len(t.keys))*int64(unsafe.Sizeof(""))
}

// put files id under key, which must not be there yet.
func (t *idTable) put(key string, id int32) {
	if 2*(t.n+1) > len(t.slots) {
		old, oldKeys := t.slots, t.keys
		t.slots = make([]idSlot, 2*len(old))
		t.keys = make([]string, 2*len(old))
		t.shift--
		for i, s := range old {
			if s.full {
				t.insert(s, oldKeys[i])
			}
		}
	}
	t.insert(idSlot{hash: hashKey([]byte(key)), id: id, n: uint8(min(len(key), 255)), full: true}, key)
	t.n++
}

func (t *idTable) insert(s idSlot, key string) {
	mask := uint64(len(t.slots) - 1)
	i := s.hash >> t.shift
	for t.slots[i].full {
		i = (i + 1) & mask
	}
	t.slots[i], t.keys[i] = s, key
}
