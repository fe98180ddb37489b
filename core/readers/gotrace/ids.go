package gotrace

import (
	"maps"
	"slices"
)

// idTable holds the states of goroutines or Ps by ID, as a map would: in
// a slice for the IDs the runtime gives (small, from 0 up), in a map for
// others (a broken trace's). The merge and the builder look one up at
// nearly every event.
type idTable[K ~int64, T any] struct {
	dense []*T
	far   map[K]*T
}

// denseIDs bounds the IDs idTable keeps in its slice.
const denseIDs = 1 << 20

func (t *idTable[K, T]) get(id K) *T {
	if uint64(id) < uint64(len(t.dense)) {
		return t.dense[id]
	}
	return t.far[id]
}

func (t *idTable[K, T]) set(id K, v *T) {
	if id < 0 || id >= denseIDs {
		if t.far == nil {
			t.far = map[K]*T{}
		}
		t.far[id] = v
		return
	}
	for K(len(t.dense)) <= id {
		t.dense = append(t.dense, nil)
	}
	t.dense[id] = v
}

func (t *idTable[K, T]) del(id K) {
	if uint64(id) < uint64(len(t.dense)) {
		t.dense[id] = nil
		return
	}
	delete(t.far, id)
}

// sorted returns the IDs held, in increasing order.
func (t *idTable[K, T]) sorted() []K {
	far := slices.Sorted(maps.Keys(t.far))
	neg := 0
	for neg < len(far) && far[neg] < 0 {
		neg++
	}
	ids := append([]K(nil), far[:neg]...)
	for id, v := range t.dense {
		if v != nil {
			ids = append(ids, K(id))
		}
	}
	return append(ids, far[neg:]...)
}
