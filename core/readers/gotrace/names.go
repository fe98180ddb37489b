package gotrace

import (
	"sort"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/ingest"
)

func init() { ingest.RegisterResourceKeys(goroutineKeys) }

// goroutineName reads the name this reader gives a goroutine's container
// ("G17 main.worker", or "G17" while the trace never told its function)
// when it is a child of the folder of goroutines (folder, the name of the
// parent, is TypeGoroutines): the function ("" when unknown) and the
// goroutine's id. ok is false for any other name. Goroutine ids are
// handed out as goroutines are created, so the same goroutine of two
// runs of a program often has two ids: what names it across runs is its
// function and its rank among the goroutines of that function.
func goroutineName(folder, name string) (fn string, id int64, ok bool) {
	if folder != TypeGoroutines || len(name) < 2 || name[0] != 'G' {
		return "", 0, false
	}
	digits, rest, _ := strings.Cut(name[1:], " ")
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || v < 0 || strconv.FormatInt(v, 10) != digits {
		return "", 0, false
	}
	return rest, v, true
}

// goroutineKeys, the reader's ingest.ResourceKeys, keys the children of
// the folder of goroutines (names, as this reader writes them: "G17
// main.worker") by their function and their rank among the folder's
// goroutines of that function, by id (the order of their creation): the
// k-th goroutine running main.worker in one run is the k-th in another,
// whatever ids the runtime handed out (they shift with every goroutine
// the runtime or a library starts earlier), the way a person pairs them.
// A goroutine whose function the trace never told ("G17") ranks among
// the others of unknown function. Nil for any other folder.
func goroutineKeys(folder string, names []string) []string {
	type goroutine struct {
		i  int
		id int64
	}
	byFn := map[string][]goroutine{}
	for i, name := range names {
		if fn, id, ok := goroutineName(folder, name); ok {
			byFn[fn] = append(byFn[fn], goroutine{i, id})
		}
	}
	if len(byFn) == 0 {
		return nil
	}
	keys := make([]string, len(names))
	for fn, gs := range byFn {
		sort.Slice(gs, func(a, b int) bool { return gs[a].id < gs[b].id })
		for k, g := range gs {
			// NUL cannot occur in a name: these keys meet no other.
			keys[g.i] = "\x00goroutine\x00" + fn + "\x00" + strconv.Itoa(k)
		}
	}
	return keys
}
