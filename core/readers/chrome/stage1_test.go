package chrome

import (
	"math/rand/v2"
	"testing"
)

// indexReference computes the blocks of data (64*n bytes) one byte at a
// time with a reader's state: whether the byte is escaped, whether it is
// in a string.
func indexReference(data []byte) []block {
	blocks := make([]block, len(data)/64)
	escaped, inString := false, false
	for p, c := range data {
		k, bit := &blocks[p/64], uint64(1)<<(p%64)
		quote := c == '"' && !escaped
		escaped = c == '\\' && !escaped
		if quote {
			k.quotes |= bit
			inString = !inString
			if inString {
				k.inside |= bit
			}
		} else if inString {
			k.inside |= bit
		}
		switch c {
		case '{', '}', '[', ']', ':', ',':
			if !inString {
				k.structural |= bit
			}
		case ' ', '\t', '\r':
			k.blanks |= bit
		case '\n':
			k.blanks |= bit
			k.newlines |= bit
		}
		if stringStops(uint64(c))&0x80 != 0 {
			k.stops |= bit
		}
	}
	return blocks
}

// jsonish makes n bytes mostly of the characters that matter to the
// index, with runs of backslashes.
func jsonish(r *rand.Rand, n int) []byte {
	const alphabet = "\"\"\"\\\\\\{}[]:, \t\r\nab01\x00\x1f\x7f\x80\xff"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return b
}

// checkIndex compares indexBlocks, called on the blocks in several parts
// to carry between calls, and indexGeneric with the reference.
func checkIndex(t *testing.T, data []byte, cut int) {
	t.Helper()
	n := len(data) / 64
	data = data[:64*n]
	want := indexReference(data)
	for name, index := range map[string]func([]byte, []block, *carry){"indexBlocks": indexBlocks, "indexGeneric": indexGeneric} {
		got := make([]block, n)
		var c carry
		cut := min(cut, n)
		index(data[:64*cut], got[:cut], &c)
		index(data[64*cut:], got[cut:], &c)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s, block %d of %d (cut at %d) of %q:\n got %+v\nwant %+v", name, i, n, cut, data[64*i:64*i+64], got[i], want[i])
			}
		}
	}
}

func TestIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		n := 1 + r.IntN(8)
		checkIndex(t, jsonish(r, 64*n), r.IntN(n+1))
	}
	// Runs of backslashes across the blocks' edges, of every length.
	for run := 1; run <= 130; run++ {
		for at := 0; at < 64; at += 7 {
			b := make([]byte, 256)
			for i := range b {
				b[i] = 'a'
			}
			for i := at; i < at+run && i < 256; i++ {
				b[i] = '\\'
			}
			if at+run < 256 {
				b[at+run] = '"'
			}
			b[0] = '"'
			checkIndex(t, b, 1)
		}
	}
}

func FuzzIndex(f *testing.F) {
	f.Add([]byte(`{"ph":"X","name":"a\"b\\","args":{"x":[1,2]}}`), 1)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		for len(data)%64 != 0 {
			data = append(data, ' ')
		}
		checkIndex(t, data, cut&7)
	})
}

// BenchmarkIndex indexes 1 MiB of a generated Kineto-like trace.
func BenchmarkIndex(b *testing.B) {
	var data []byte
	for len(data) < 1<<20 {
		data = append(data, `{"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 1700000000170.000, "dur": 300.000, "args": {"External id": 2, "correlation": 1, "grid": [128, 1, 1]}},`+"\n"...)
	}
	data = data[:1<<20]
	blocks := make([]block, len(data)/64)
	for name, index := range map[string]func([]byte, []block, *carry){"vector": indexBlocks, "generic": indexGeneric} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var c carry
				index(data, blocks, &c)
			}
		})
	}
}
