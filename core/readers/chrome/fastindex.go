package chrome

import "math/bits"

// windowIndex is the stage 1 index (stage1.go) of part of the scanner's
// window, from an event's opening brace: the event reader and skipFast
// find the end of plain strings in its bitmaps instead of scanning their
// bytes. Blanks are still passed by skipBlanks, inline: a call to look
// them up cost more than the one space Kineto writes after ':' and ','.
// Only the bitmaps that classify bytes whatever their context are used,
// so an index is right wherever it starts.
type windowIndex struct {
	blocks   []block
	from, to int // the window's bytes it covers; to-from is 64*len(blocks)
}

const (
	// indexChunk is how many blocks are indexed at a time: 16 KiB, some
	// sixty Kineto events, small enough for the index to stay in the
	// first-level cache.
	indexChunk = 256
	// indexAhead is how far past an event's start the index must reach
	// for the event to be read with it, else it is made again from there.
	indexAhead = 2 << 10
)

// indexFrom returns an index of the window from b[pos] on, the opening
// brace of an event: the one made before if it covers indexAhead bytes
// from pos, else a new one. It is empty without a vector kernel (scanning
// eight bytes at a time is faster than indexing them first) and near the
// end of the window.
func (s *scanner) indexFrom(pos int) *windowIndex {
	x := &s.ix
	if !hasVectorIndex || s.slowOnly {
		return x
	}
	if pos >= x.from && pos+indexAhead <= x.to {
		return x
	}
	n := min(indexChunk, (s.end-pos)/64)
	if cap(x.blocks) < indexChunk {
		x.blocks = make([]block, indexChunk)
	}
	var c carry
	indexBlocks(s.buf[pos:pos+64*n], x.blocks[:n], &c)
	x.from, x.to = pos, pos+64*n
	return x
}

// forget empties the index, whose bytes are moving in the window.
func (x *windowIndex) forget() { x.from, x.to = 0, 0 }

// stringEnd returns the index of the closing quote of the string whose
// body starts at b[from], if the body holds no byte a string scan stops
// at (no escape, control character or multi-byte character) and lies in
// the index; ok is false otherwise.
func (x *windowIndex) stringEnd(b []byte, from int) (end int, ok bool) {
	for k := uint(from - x.from); k < uint(x.to-x.from); {
		shift := k & 63
		if stops := x.blocks[k>>6].stops >> shift; stops != 0 {
			j := x.from + int(k) + bits.TrailingZeros64(stops)
			return j, b[j] == '"'
		}
		k += 64 - shift
	}
	return 0, false
}

// plainString is the function plainString, with the index for the
// strings whose body holds no byte a string scan stops at.
func (x *windowIndex) plainString(b []byte, i int) ([]byte, int, bool) {
	if i < len(b) && b[i] == '"' {
		if j, ok := x.stringEnd(b, i+1); ok {
			return b[i+1 : j], j + 1, true
		}
	}
	return plainString(b, i)
}
