package ingest

import (
	"bufio"
	"fmt"
)

// A decompression bomb is a small file that expands to gigabytes: zeros,
// one line repeated, a name of a gigabyte. What comes out of every
// decompressor (Decompress, and the compressed packets inside a Perfetto
// trace) is counted by an Expansion, which stops it past the limit the
// user sets (max_decompressed), or sooner, once past BombFloor, when the
// output is more than BombRatio times the compressed input: deflate cannot
// pass 1032:1, and traces compress 5 to 50 times (29:1 at most in the
// corpus), so that only a bomb gets there. Readers bound what they hold
// in memory apart (a line, a value, the read's memory budget).

// BombRatio is the expansion past which compressed data is taken for a
// bomb, once BombFloor bytes came out.
const BombRatio = 1000

// BombFloor is the output under which the ratio is not looked at: small
// inputs of repeated bytes expand that much legitimately.
const BombFloor = 1 << 30

// bombFloor is BombFloor, lowered by tests.
var bombFloor int64 = BombFloor

// Expansion counts what a decompressor makes of its input.
type Expansion struct {
	What  string // what is decompressed, for errors ("gzip", "compressed packets")
	Limit int64  // most bytes out; <= 0: no limit, and no ratio check
	In    int64  // compressed bytes read
	Out   int64  // bytes that came out
}

// Add counts n bytes more out and returns the error of a bomb: past the
// limit, or past BombFloor at more than BombRatio times the input.
func (e *Expansion) Add(n int) error {
	e.Out += int64(n)
	if e.Limit <= 0 {
		return nil
	}
	if e.Out > e.Limit {
		return fmt.Errorf("%s data expands past %d bytes, the limit (a decompression bomb?); raise max_decompressed to read it (%d bytes came out of %d compressed bytes)",
			e.What, e.Limit, e.Out, e.In)
	}
	if e.Out > bombFloor && e.In > 0 && e.Out/e.In > BombRatio {
		return fmt.Errorf("%s data expands %d times (%d bytes out of %d compressed bytes read), more than any trace does (%d:1): a decompression bomb; give max_decompressed=0 to read it all the same",
			e.What, e.Out/e.In, e.Out, e.In, BombRatio)
	}
	return nil
}

// countedInput is a decompressor's input, counted into an Expansion.
type countedInput struct {
	br *bufio.Reader
	e  *Expansion
}

func (c *countedInput) Read(p []byte) (int, error) {
	n, err := c.br.Read(p)
	c.e.In += int64(n)
	return n, err
}

func (c *countedInput) ReadByte() (byte, error) {
	b, err := c.br.ReadByte()
	if err == nil {
		c.e.In++
	}
	return b, err
}
