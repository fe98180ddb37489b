package trace

import (
	"fmt"
	"iter"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// testEntities is enough entities for three blocks, the last one partly
// filled.
const testEntities = 2*blockLen + 7

// entityColumn is what every entity column offers.
type entityColumn[E any] interface {
	Len() int
	At(i int) E
	Set(i int, e E)
	All() iter.Seq2[int, E]
	Slice() []E
	Grow(n int)
	Bytes() int64
}

// roundTrip checks that c, built from want, gives it back through Len,
// At, All and Slice; that Set replaces entities (the first and last of a
// block, the last of all) with change's and no other; and that At and
// Set refuse an index out of range.
func roundTrip[E comparable](t *testing.T, c entityColumn[E], want []E, change func(E) E) {
	t.Helper()
	if c.Len() != len(want) {
		t.Fatalf("%d entities, want %d", c.Len(), len(want))
	}
	if got := c.Slice(); !reflect.DeepEqual(got, want) {
		t.Fatal("Slice differs from the entities appended")
	}
	seen := 0
	for i, e := range c.All() {
		if i != seen || e != want[i] {
			t.Fatalf("All: entity %d (yielded %d-th) is %+v, want %+v", i, seen, e, want[i])
		}
		seen++
	}
	if seen != len(want) {
		t.Fatalf("All yielded %d entities, want %d", seen, len(want))
	}
	for i, e := range c.All() { // All stops when asked
		if i > 0 {
			t.Fatalf("All went on after a stop, to %d (%+v)", i, e)
		}
		break
	}
	want = append([]E(nil), want...)
	for _, i := range []int{0, blockLen - 1, blockLen, len(want) - 1} {
		if got := c.At(i); got != want[i] {
			t.Errorf("At(%d) = %+v, want %+v", i, got, want[i])
		}
		want[i] = change(want[i])
		c.Set(i, want[i])
	}
	for i, e := range c.All() {
		if e != want[i] {
			t.Fatalf("after Set, entity %d is %+v, want %+v", i, e, want[i])
		}
	}
	for _, i := range []int{-1, len(want)} {
		for name, f := range map[string]func(){"At": func() { c.At(i) }, "Set": func() { c.Set(i, want[0]) }} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s(%d) did not panic", name, i)
					}
				}()
				f()
			}()
		}
	}
}

// checkBytes checks that a column of n entities weighs its blocks (per
// entity in each) and their index, plus extra.
func checkBytes[E any](t *testing.T, c entityColumn[E], perEntity, extra int64) {
	t.Helper()
	blocks := int64(c.Len()+blockLen-1) / blockLen
	if got, want := c.Bytes(), blocks*blockLen*perEntity+blocks*8+extra; got != want {
		t.Errorf("Bytes = %d, want %d (%d blocks of %d entities at %d bytes, their index, %d bytes beside)",
			got, want, blocks, blockLen, perEntity, extra)
	}
}

func TestVariableColumnRoundTrip(t *testing.T) {
	want := make([]Variable, testEntities)
	for i := range want {
		want[i] = Variable{Container: int32(i % 1000), Type: int32(i % 7), Start: Time(i) * 1000,
			End: Time(i)*1000 + Time(i%13), Value: float64(i) / 3}
	}
	c := VariablesOf(want...)
	roundTrip(t, &c, want, func(v Variable) Variable { v.Value, v.End = -v.Value-1, v.End+1; return v })
	checkBytes(t, &c, 32, 0)
	if VariableBlockBytes != blockLen*32 {
		t.Errorf("VariableBlockBytes = %d, want 32 bytes a piece", VariableBlockBytes)
	}
}

func TestEventColumnRoundTrip(t *testing.T) {
	want := make([]Event, testEntities)
	for i := range want {
		want[i] = Event{Container: int32(i % 1000), Type: int32(i % 7), Value: int32(i%11) - 1, Time: Time(i) * 1000}
	}
	c := EventsOf(want...)
	roundTrip(t, &c, want, func(e Event) Event { e.Value, e.Time = e.Value+5, -e.Time; return e })
	checkBytes(t, &c, 20, 0)
}

func TestStateColumnBytes(t *testing.T) {
	var c StateColumn
	for i := range blockLen + 1 {
		c.Append(State{Depth: int32(i % 3)})
	}
	checkBytes(t, &c, 33, 0)
}

// keyOf gives link i a key as the formats do: none (most of them), a
// unique one (Pajé's), or now and then a long one.
func keyOf(i int) string {
	switch {
	case i%3 == 0:
		return ""
	case i%1000 == 1:
		return strings.Repeat(fmt.Sprint(i), 200)
	}
	return fmt.Sprintf("k%d", i)
}

func TestLinkColumnRoundTrip(t *testing.T) {
	want := make([]Link, testEntities)
	arena := make([]int64, 3) // key bytes by block
	for i := range want {
		want[i] = Link{Container: int32(i % 10), Type: int32(i % 7), Value: int32(i%11) - 1,
			Start: Time(i) * 1000, End: Time(i)*1000 + Time(i%13), From: int32(i % 1000), To: int32(i % 999),
			Key: keyOf(i), Size: float64(i % 4096)}
		arena[i/blockLen] += int64(len(want[i].Key))
	}
	c := LinksOf(want...)
	// Keys replaced by none, a shorter one, a longer one and an equal one.
	roundTrip(t, &c, want, func(l Link) Link {
		switch {
		case l.Key == "":
			l.Key = "new key"
		case len(l.Key) > 3:
			l.Key = l.Key[:2]
		}
		l.Size++
		return l
	})
	var blockArena int64 // the arenas, as append grew them
	for _, b := range c.blocks {
		blockArena += int64(cap(b.keys))
	}
	checkBytes(t, &c, 52, blockArena)
	if blockArena < arena[0]+arena[1]+arena[2] || blockArena > 2*(arena[0]+arena[1]+arena[2])+3*1024 {
		t.Errorf("the arenas take %d bytes for %d bytes of keys", blockArena, arena[0]+arena[1]+arena[2])
	}
	// Unkeyed, AtUnkeyed and AppendKey give the same links, keys apart.
	var buf []byte
	for i, l := range c.Unkeyed() {
		full := c.At(i)
		if buf = c.AppendKey(buf[:0], i); string(buf) != full.Key {
			t.Fatalf("AppendKey(%d) = %q, At's key is %q", i, buf, full.Key)
		}
		if full.Key = ""; l != full {
			t.Fatalf("Unkeyed: link %d is %+v, want %+v", i, l, full)
		}
		if at := c.AtUnkeyed(i); at != full {
			t.Fatalf("AtUnkeyed(%d) = %+v, want %+v", i, at, full)
		}
	}
}

// TestLinkColumnKeys replaces keys by empty, shorter, longer and equal
// ones, and keeps the keys an arena cannot reach aside.
func TestLinkColumnKeys(t *testing.T) {
	defer func(m int) { maxArena = m }(maxArena)
	maxArena = 10
	var c LinkColumn
	keys := []string{"", "abcd", "efgh", "far away", "", "x"}
	for _, k := range keys {
		c.Append(Link{Key: k})
	}
	if got := c.At(3).Key; got != "far away" || c.blocks[0].keyLen[3] != farKey {
		t.Errorf("a key past the arena is %q, kept aside: %v", got, c.blocks[0].keyLen[3] == farKey)
	}
	for _, set := range []struct {
		i   int
		key string
	}{{1, "ab"}, {1, "abcd"}, {2, ""}, {3, "yz"}, {0, "0123456789"}, {4, ""}, {5, "z"}} {
		keys[set.i] = set.key
		c.Set(set.i, Link{Key: set.key})
		for i, l := range c.All() {
			if l.Key != keys[i] {
				t.Fatalf("after setting key %d to %q, key %d is %q, want %q", set.i, set.key, i, l.Key, keys[i])
			}
		}
	}
	// The arena is full (9 bytes: "abcd", "efgh", "x"), so a key that
	// grows goes aside: "abcd" again, "yz" and "0123456789"; "far away"
	// is gone.
	if len(c.blocks[0].far) != 3 || len(c.blocks[0].keys) != 9 {
		t.Errorf("%d keys aside, %d bytes of arena; want 3 and 9", len(c.blocks[0].far), len(c.blocks[0].keys))
	}
}

// TestEventColumnMemory measures the heap a million events take: 20
// bytes each, and less than one more block, since a column never copies
// itself to grow.
func TestEventColumnMemory(t *testing.T) {
	const n = 1_000_000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var c EventColumn
	for i := range n {
		c.Append(Event{Container: int32(i), Time: Time(i)})
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	if limit := int64(n*20 + EventBlockBytes + 64<<10); held > limit {
		t.Errorf("%d events hold %d bytes (%.1f each), want at most %d", n, held, float64(held)/n, limit)
	}
	t.Logf("%d events: %d bytes of heap, %.2f each; Bytes %d", n, held, float64(held)/n, c.Bytes())
	if per := float64(c.Bytes()) / n; per > 21 {
		t.Errorf("Bytes says %.2f bytes an event", per)
	}
	runtime.KeepAlive(&c)
}
