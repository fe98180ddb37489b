package paje

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// stateLinesHeader defines state events of every shape stateLines meets:
// SetState with one-byte and two-byte ids, PopState without a value,
// PushState with its fields in another order, and one with user fields
// past maxStateLineFields.
const stateLinesHeader = `%EventDef PajeSetState 3
% Time date
% Container string
% Type string
% Value string
%EndEventDef
%EventDef PajeSetState 13
% Time date
% Container string
% Type string
% Value string
%EndEventDef
%EventDef PajePopState p
% Time date
% Container string
% Type string
%EndEventDef
%EventDef PajePushState u
% Type string
% Value string
% Extra string
% Container string
% Time date
%EndEventDef
%EventDef PajePushState w
% Time date
% Container string
% Type string
% Value string
% A string
% B string
% C string
% D string
%EndEventDef
`

// stateLinesTable returns the definitions of stateLinesHeader.
func stateLinesTable(t testing.TB) *defTable {
	d := newDecoder(&trace.Counter{}, Options{}, 0)
	if err := d.decode(strings.NewReader(stateLinesHeader), "header.trace"); err != nil {
		t.Fatal(err)
	}
	return d.tables.Load()
}

// tokenizeBoth tokenizes body with and without stateLines and fails if
// the records, the fields or where the tokenizer stopped differ.
func tokenizeBoth(t testing.TB, tab *defTable, body []byte) {
	var got, want chunk
	for _, c := range []*chunk{&got, &want} {
		c.data, c.tab = body, tab
	}
	defer func() { splitStateLines = true }()
	splitStateLines = false
	want.tokenize()
	splitStateLines = true
	got.tokenize()
	if got.stop != want.stop || got.stopLine != want.stopLine || !slices.Equal(got.recs, want.recs) || !slices.Equal(got.spans, want.spans) {
		t.Fatalf("%q:\nstateLines: stop %d line %d, %d records %v, fields %v\nplainLine:  stop %d line %d, %d records %v, fields %v",
			body, got.stop, got.stopLine, len(got.recs), got.recs, got.spans, want.stop, want.stopLine, len(want.recs), want.recs, want.spans)
	}
}

// stateLinesBody writes n lines, mostly state events, with dates, keys
// and separators of every kind the fast path takes or leaves.
func stateLinesBody(rng *rand.Rand, n int) []byte {
	dates := []string{"1.952378086", "0.000000001", "12.500000000", "9999999999.999999999", "99999999999.000000000",
		"12.5", "3", "-1.000000000", "+2.000000000", "1.1234567891", "1e-3", "1.00000000x", "1..00000000", "x.123456789", "00000000001.000000000",
		"123456.123456789", "1234567.123456789", "12.12345678x", "12.x12345678", "1x.123456789", "00.000000000", ".123456789", "1.2.34567890", "1.0123456789"}
	key := func() string {
		const letters = "abkv0123456789$%&()*+,-./:;<=>?@XYZ_~"
		b := make([]byte, 1+rng.IntN(9))
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		return string(b)
	}
	sep := func() string {
		return [...]string{" ", " ", " ", " ", "  ", "\t", " \t "}[rng.IntN(7)]
	}
	var b bytes.Buffer
	for range n {
		d := dates[rng.IntN(len(dates))]
		if rng.IntN(3) > 0 {
			d = fmt.Sprintf("%d.%09d", rng.IntN(20000), rng.IntN(1e9))
		}
		var fields []string
		switch rng.IntN(12) {
		case 0:
			fields = []string{"13", d, key(), key(), key()}
		case 1:
			fields = []string{"p", d, key(), key()}
		case 2:
			fields = []string{"u", key(), key(), key(), key(), d}
		case 3:
			fields = []string{"w", d, key(), key(), key(), "a", "b", "c", "d"}
		case 4:
			fields = []string{"3", d, key(), key()} // a field short
		case 5:
			fields = []string{"3", d, "\"" + key() + " q\"", key(), key()}
		case 6:
			b.WriteString([...]string{"", "# a comment", "   ", "9 1.0 a b c", "%3 1.0 a b c", "3 1.0 a b c # after"}[rng.IntN(6)] + "\n")
			continue
		default:
			fields = []string{"3", d, key(), key(), key()}
		}
		if rng.IntN(4) == 0 {
			b.WriteString(sep()) // leading blanks
		}
		for i, f := range fields {
			if i > 0 {
				b.WriteString(sep())
			}
			b.WriteString(f)
		}
		if rng.IntN(8) == 0 {
			b.WriteString(sep()) // trailing blanks
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestStateLinesAsPlainLine checks that stateLines makes the records
// plainLine makes, on lines of every kind at every place in a 64-byte word.
func TestStateLinesAsPlainLine(t *testing.T) {
	if !hasVectorScan {
		t.Skip("no vector kernel on this processor or build (purego): stateLines needs the bitmaps")
	}
	tab := stateLinesTable(t)
	rng := rand.New(rand.NewPCG(7, 8))
	for range 300 {
		body := stateLinesBody(rng, 1+rng.IntN(60))
		for lead := range 64 {
			tokenizeBoth(t, tab, append(bytes.Repeat([]byte{' '}, lead), body...))
		}
		// Cut anywhere: the last line may lack its '\n'.
		tokenizeBoth(t, tab, body[:rng.IntN(len(body)+1)])
	}
	// The generated trace, whose lines stateLines takes nearly all.
	in := []byte(generate(genConfig{processes: 7, events: 3000, seed: 3}))
	d := newDecoder(&trace.Counter{}, Options{}, 0)
	head := bytes.Index(in, []byte("\n5 ")) + 1
	if err := d.decode(bytes.NewReader(in[:head]), "gen.trace"); err != nil {
		t.Fatal(err)
	}
	tokenizeBoth(t, d.tables.Load(), in[head:])
}

// FuzzStateLines compares stateLines with plainLine on arbitrary lines
// after stateLinesHeader's definitions.
func FuzzStateLines(f *testing.F) {
	readertest.BoundMinimization(f)
	if !hasVectorScan {
		f.Skip("no vector kernel on this processor or build (purego): stateLines needs the bitmaps")
	}
	tab := stateLinesTable(f)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 8 {
		f.Add(stateLinesBody(rng, 12))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > maxFuzzInput {
			return
		}
		tokenizeBoth(t, tab, body)
	})
}
