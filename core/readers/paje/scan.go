package paje

import "math/bits"

// A chunk's bytes are classified before its lines are split (on amd64
// with AVX2: see scan_amd64.go): two bitmaps, a bit for each byte, tell
// its spaces and its odd bytes (those below '$' but the space: '\n', tabs,
// controls, '"', '#' and '!'; and those from 0x80 up). Lines are then
// split a 64-bit word of bitmap at a time (bitFields), where plainFields
// reads eight bytes at a time. Without AVX2 the classification would cost
// more than it saves, and plainFields splits the lines.

// bitmaps holds the classification of a chunk's bytes: bit j of word i
// stands for byte 64*i+j. The bytes past the end of the data count as
// odd, as if a '\n' ended the data, so that the last line ends.
type bitmaps struct {
	spaces, odds []uint64
}

// classify fills m for data, with classifyBlocks for the whole blocks of
// 64 bytes and classifyGeneric for the rest. It returns false where no
// vector kernel is there to do it.
func (m *bitmaps) classify(data []byte) bool {
	if !hasVectorScan {
		return false
	}
	n := len(data)/64 + 1
	if cap(m.spaces) < n {
		m.spaces, m.odds = make([]uint64, n), make([]uint64, n)
	}
	m.spaces, m.odds = m.spaces[:n], m.odds[:n]
	whole := n - 1
	classifyBlocks(data[:64*whole], m.spaces[:whole], m.odds[:whole])
	m.spaces[whole], m.odds[whole] = classifyTail(data[64*whole:])
	return true
}

// classifyGeneric is what the vector kernels compute, a byte at a time:
// the reference they are tested against, and the kernel of other
// processors.
func classifyGeneric(data []byte, spaces, odds []uint64) {
	for i := range spaces {
		spaces[i], odds[i] = classifyTail(data[64*i : 64*i+64])
	}
}

// classifyTail classifies at most 64 bytes; the bits past them are odd.
func classifyTail(b []byte) (spaces, odds uint64) {
	for j, c := range b {
		if c == ' ' {
			spaces |= 1 << j
		} else if c < '$' || c >= 0x80 {
			odds |= 1 << j
		}
	}
	if len(b) < 64 {
		odds |= ^uint64(0) << len(b)
	}
	return spaces, odds
}

// bitFields is plainFields on a classified chunk: it splits the line at
// data[pos:] at its spaces, if it is made of spaces and of bytes that are
// not odd, and returns where the line ends (its '\n', or the end of data);
// false for any other line. Its fields are those plainFields finds.
func bitFields(data []byte, m *bitmaps, pos int, spans []span) ([]span, int, bool) {
	open := len(spans) // the first field not ended yet
	w := pos >> 6
	// The bytes of the word before the line count as spaces, and so does
	// the byte before the word.
	before := uint64(1)<<(pos&63) - 1
	prevSpace := uint64(1)
	for ; ; w++ {
		space, odd := m.spaces[w]|before, m.odds[w]&^before
		before = 0
		end := -1
		if odd != 0 {
			j := bits.TrailingZeros64(odd)
			end = w<<6 + j
			if end < len(data) && data[end] != '\n' {
				return spans, 0, false
			}
			end = min(end, len(data))
			space |= ^uint64(0) << j // the '\n' and beyond end fields
		}
		// A field starts at a non-space after a space, and ends at a
		// space after a non-space. Starts and ends alternate, so the
		// k-th end closes the k-th field.
		shifted := space<<1 | prevSpace
		prevSpace = space >> 63
		base := uint32(w << 6)
		for starts := ^space & shifted; starts != 0; starts &= starts - 1 {
			spans = append(spans, span{from: base + uint32(bits.TrailingZeros64(starts))})
		}
		for ends := space &^ shifted; ends != 0; ends &= ends - 1 {
			spans[open].to = base + uint32(bits.TrailingZeros64(ends))
			open++
		}
		if end >= 0 {
			return spans, end, true
		}
	}
}
