package paje

import (
	"strconv"
	"testing"
)

// TestIDTable files keys of every length up to 20 and finds each, and
// none of the keys it was not given (among them keys that differ by one
// byte or by their length only).
func TestIDTable(t *testing.T) {
	tab := newIDTable()
	var keys []string
	for i := range 5000 {
		k := strconv.Itoa(i * 7919)
		for len(k) < i%21 {
			k += "x"
		}
		keys = append(keys, k[:i%21])
	}
	filed := map[string]int32{}
	for i, k := range keys {
		if _, dup := filed[k]; dup {
			continue
		}
		tab.put(k, int32(i))
		filed[k] = int32(i)
	}
	for k, want := range filed {
		if got, ok := tab.get([]byte(k)); !ok || got != want {
			t.Fatalf("%q: got %d, %v; want %d", k, got, ok, want)
		}
		for _, other := range []string{k + "\x00", k + "y", "\x00" + k, k[:max(0, len(k)-1)]} {
			if _, ok := filed[other]; ok {
				continue
			}
			if got, ok := tab.get([]byte(other)); ok {
				t.Fatalf("%q is not filed, found as %d", other, got)
			}
		}
	}
	var empty *idTable
	if _, ok := empty.get([]byte("a")); ok {
		t.Fatal("a nil table holds a key")
	}
}
