package chrome

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/intern"
)

// TestInternerNumbers checks that the interner, which indexes decimal
// integers by value, gives the ids a plain table gives: ids counted up as
// writers do, scattered ones past the pages' density bound, texts that are
// not canonical ("007", "-3", "1e3"), names, and the same again after a
// reset, through both entry points.
func TestInternerNumbers(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 1))
	in := newInterner()
	for round := range 3 {
		var plain intern.Table
		in.reset()
		next := uint64(r.IntN(1000))
		for i := range 200000 {
			var s string
			switch k := r.IntN(10); {
			case k < 4:
				next += uint64(r.IntN(3))
				s = strconv.FormatUint(next, 10)
			case k < 6:
				s = strconv.FormatUint(r.Uint64()>>uint(r.IntN(64)), 10)
			case k < 7:
				s = []string{"007", "-3", "1e3", "0", "", "00", "1234567890123456", "999999999999999", "4242"}[r.IntN(9)]
			default:
				s = "name" + strconv.Itoa(r.IntN(500))
			}
			var got int32
			if i%2 == 0 {
				got = in.id([]byte(s))
			} else {
				got = in.idOf(s)
			}
			if want := plain.ID(s); got != want {
				t.Fatalf("round %d, string %d %q: id %d, a table gives %d", round, i, s, got, want)
			}
		}
		if in.Len() != plain.Len() {
			t.Fatalf("round %d: %d strings, a table has %d", round, in.Len(), plain.Len())
		}
		for id := range int32(plain.Len()) {
			if in.String(id) != plain.String(id) {
				t.Fatalf("round %d: String(%d) = %q, a table gives %q", round, id, in.String(id), plain.String(id))
			}
		}
		if round == 0 && !in.nums.full {
			t.Error("scattered values did not fill the pages' bound")
		}
	}
}

// TestInternerShortWords checks the comparison of strings as words against
// a plain table: strings of zero to twenty-four bytes from a small
// alphabet (many share a length, their first or last words, and a cache
// slot), cut from a buffer whose bytes past them differ from call to
// call, the same strings with a capacity of their own length, and
// strings whose first and last eight bytes are the same.
func TestInternerShortWords(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 3))
	in := newInterner()
	var plain intern.Table
	buf := make([]byte, 64)
	for i := range 100000 {
		n := r.IntN(25)
		for k := range buf {
			buf[k] = "ab\x00"[r.IntN(3)]
		}
		b := buf[5 : 5+n]
		if i%3 == 0 {
			b = b[:n:n]
		}
		s := string(b)
		if got, want := in.id(b), plain.ID(s); got != want {
			t.Fatalf("string %d %q: id %d, a table gives %d", i, s, got, want)
		}
	}
	// Strings of sixteen bytes and more whose first and last eight are
	// the same: the bytes between them tell them apart.
	for i := range 10000 {
		b := append(buf[:0], "aaaaaaaa"...)
		for range r.IntN(9) {
			b = append(b, "ab"[r.IntN(2)])
		}
		b = append(b, "bbbbbbbb"...)
		s := string(b)
		if got, want := in.id(b), plain.ID(s); got != want {
			t.Fatalf("string %d %q: id %d, a table gives %d", i, s, got, want)
		}
	}
}
