package chrome

import "math/bits"

// Stage 1 of a simdjson-style scan: each block of 64 input bytes becomes
// bitmaps, one bit a byte, that the event reader consults instead of
// looking at the bytes one by one. Some bitmaps only classify bytes
// (blanks, newlines, the bytes a string scan stops at), and hold whatever
// the context; the quotes, the inside of strings and the structural
// characters depend on what precedes the block, carried from block to
// block, and so are right only from a start outside any string.

// block holds the bitmaps of 64 bytes; bit j is byte j.
type block struct {
	// quotes are the '"' not escaped by a backslash.
	quotes uint64
	// inside marks the bytes of strings, from their opening quote up to
	// their closing one, which is not marked.
	inside uint64
	// structural marks '{', '}', '[', ']', ':' and ',' outside strings.
	structural uint64
	// blanks are ' ', '\t', '\r' and '\n'; newlines the '\n' alone.
	blanks, newlines uint64
	// stops are the bytes a string scan must look at: '"', '\\',
	// control characters and the bytes of multi-byte UTF-8 (see
	// stringStops).
	stops uint64
}

// carry is what the bitmaps of a block take from the blocks before it.
type carry struct {
	// escaped is 1 when the byte after the last block is escaped (the
	// block ended in an odd run of backslashes).
	escaped uint64
	// inString is all ones when the last block ended inside a string.
	inString uint64
}

// evenBits are the even bits of a word, the bytes at even offsets.
const evenBits = 0x5555555555555555

// escapedBytes returns the bytes that a backslash escapes, given the
// backslashes of a block: a backslash escapes the byte after it unless it
// is escaped itself, so of a run of backslashes every other one escapes.
// The runs are told apart by where they start, even or odd, with one
// addition (simdjson's find_escaped).
func escapedBytes(backslashes uint64, c *carry) uint64 {
	if backslashes == 0 {
		escaped := c.escaped
		c.escaped = 0
		return escaped
	}
	backslashes &^= c.escaped // a backslash escaped from the last block escapes nothing
	followsEscape := backslashes<<1 | c.escaped
	oddStarts := backslashes &^ evenBits &^ followsEscape
	evenStarts, overflow := bits.Add64(oddStarts, backslashes, 0)
	c.escaped = overflow
	return (evenBits ^ evenStarts<<1) & followsEscape
}

// prefixXor returns the word whose bit j is the parity of bits 0 to j of
// x: from one quote to the next, the inside of a string.
func prefixXor(x uint64) uint64 {
	x ^= x << 1
	x ^= x << 2
	x ^= x << 4
	x ^= x << 8
	x ^= x << 16
	x ^= x << 32
	return x
}

// finishBlock derives the bitmaps that depend on the context from the
// classified bytes of a block (raw quotes, backslashes and structural
// characters, in and out of strings).
func finishBlock(k *block, rawQuotes, backslashes, rawStructural uint64, c *carry) {
	k.quotes = rawQuotes &^ escapedBytes(backslashes, c)
	k.inside = prefixXor(k.quotes) ^ c.inString
	c.inString = uint64(int64(k.inside) >> 63)
	k.structural = rawStructural &^ k.inside
}

// classifyBytes returns the bits of the bytes of b (at most 64): their raw quote,
// backslash and structural bits, and its blank, newline and stop bits.
func classifyBytes(b []byte) (k block, rawQuotes, backslashes, rawStructural uint64) {
	for j, c := range b {
		bit := uint64(1) << j
		switch c {
		case '"':
			rawQuotes |= bit
		case '\\':
			backslashes |= bit
		case '{', '}', '[', ']', ':', ',':
			rawStructural |= bit
		case ' ', '\t', '\r':
			k.blanks |= bit
		case '\n':
			k.blanks |= bit
			k.newlines |= bit
		}
		if c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
			k.stops |= bit
		}
	}
	return
}

// indexGeneric is what the vector kernel computes, a byte at a time: the
// reference it is tested against, and the kernel of other processors.
// data holds 64*len(blocks) bytes.
func indexGeneric(data []byte, blocks []block, c *carry) {
	for i := range blocks {
		k, q, bs, st := classifyBytes(data[64*i : 64*i+64])
		finishBlock(&k, q, bs, st, c)
		blocks[i] = k
	}
}
