package paje

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkBitFields checks bitFields against plainFields on line, followed by
// after and preceded by 0 to 63 bytes of another line (every place of
// the line in a 64-byte word), with the vector kernel where there is one
// and the generic one.
func checkBitFields(t *testing.T, line, after []byte) {
	for lead := range 64 {
		buf := make([]byte, 0, lead+len(line)+len(after))
		buf = append(buf, bytes.Repeat([]byte("x"), lead)...)
		if lead > 0 {
			buf[lead-1] = '\n'
		}
		buf = append(append(buf, line...), after...)
		want, wantEnd, wantOK := plainFields(buf, lead, nil)
		for _, generic := range []bool{false, true} {
			var m bitmaps
			if !classifyWith(&m, buf, generic) {
				continue
			}
			got, end, ok := bitFields(buf, &m, lead, nil)
			if ok != wantOK || ok && (end != wantEnd || !slices.Equal(got, want)) {
				t.Fatalf("%q after %d bytes (generic %v): bitFields gives %v, %d, %v; plainFields %v, %d, %v",
					line, lead, generic, got, end, ok, want, wantEnd, wantOK)
			}
		}
	}
}

// classifyWith classifies data with the vector kernel, or the generic one.
func classifyWith(m *bitmaps, data []byte, generic bool) bool {
	if !generic {
		return m.classify(data)
	}
	n := len(data)/64 + 1
	m.spaces, m.odds = make([]uint64, n), make([]uint64, n)
	classifyGeneric(data[:64*(n-1)], m.spaces[:n-1], m.odds[:n-1])
	m.spaces[n-1], m.odds[n-1] = classifyTail(data[64*(n-1):])
	return true
}

// TestClassify checks the kernel the processor uses against the generic
// one, on bytes of every value and on trace-like text, at every length.
func TestClassify(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 700 {
		data := make([]byte, n)
		for i := range data {
			if rng.IntN(2) == 0 {
				data[i] = byte(rng.IntN(256))
			} else {
				data[i] = " 5 0.12\"#\n\t!$AZaz~"[rng.IntN(18)]
			}
		}
		checkClassify(t, data)
	}
}

func checkClassify(t *testing.T, data []byte) {
	var vec, gen bitmaps
	if !vec.classify(data) {
		t.Skip("no vector kernel on this processor or build (purego)")
	}
	classifyWith(&gen, data, true)
	if !slices.Equal(vec.spaces, gen.spaces) || !slices.Equal(vec.odds, gen.odds) {
		t.Fatalf("%q: kernel %x %x, generic %x %x", data, vec.spaces, vec.odds, gen.spaces, gen.odds)
	}
}

// FuzzClassify compares the kernel with the generic classification.
func FuzzClassify(f *testing.F) {
	f.Add([]byte("5 1.000000000 ST k1 v0\n6 2 \"a b\" #c\n"))
	f.Add(bytes.Repeat([]byte{0x80, ' ', '#', '$', 0xff, '\t', '\n', '!'}, 20))
	f.Fuzz(func(t *testing.T, data []byte) { checkClassify(t, data) })
}

// TestBitFieldsOnSynth splits every line of a generated trace both ways.
func TestBitFieldsOnSynth(t *testing.T) {
	in := []byte(generate(genConfig{processes: 7, events: 3000, seed: 3}))
	var m bitmaps
	classifyWith(&m, in, !hasVectorScan)
	for pos := 0; pos < len(in); {
		want, wantEnd, wantOK := plainFields(in, pos, nil)
		got, end, ok := bitFields(in, &m, pos, nil)
		if ok != wantOK || ok && (end != wantEnd || !slices.Equal(got, want)) {
			t.Fatalf("line at %d: bitFields %v %d %v, plainFields %v %d %v", pos, got, end, ok, want, wantEnd, wantOK)
		}
		if !ok {
			i := bytes.IndexByte(in[pos:], '\n')
			if i < 0 {
				break
			}
			wantEnd = pos + i
		}
		pos = wantEnd + 1
	}
}
