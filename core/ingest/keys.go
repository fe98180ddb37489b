package ingest

import "sync"

// ResourceKeys keys the children of a resource (names, their names in a
// run) for matching the resources of several runs: keys[i] is the key of
// names[i] ("" to match it by its name), or nil when the function does not
// know such children. A reader registers one for the resources whose
// names hold ids a run hands out (Go goroutines); comparisons of runs
// (core/views/compare) ask them, without knowing the format.
type ResourceKeys func(parent string, names []string) []string

var (
	keysMu sync.RWMutex
	keys   []ResourceKeys
)

// RegisterResourceKeys adds a reader's ResourceKeys (at its package's
// initialisation).
func RegisterResourceKeys(f ResourceKeys) {
	keysMu.Lock()
	defer keysMu.Unlock()
	keys = append(keys, f)
}

// KeyResources returns the keys of the children names of parent by the
// first registered ResourceKeys that knows them, nil if none does.
func KeyResources(parent string, names []string) []string {
	keysMu.RLock()
	defer keysMu.RUnlock()
	for _, f := range keys {
		if k := f(parent, names); k != nil {
			return k
		}
	}
	return nil
}
