package gotrace

import (
	"strconv"
	"strings"
)

// GoroutineName reads the name this reader gives a goroutine's container
// ("G17 main.worker", or "G17" while the trace never told its function)
// when it is a child of the folder of goroutines (folder, the name of the
// parent, is TypeGoroutines): the function ("" when unknown) and the
// goroutine's id. ok is false for any other name. Goroutine ids are
// handed out as goroutines are created, so the same goroutine of two
// runs of a program often has two ids: what names it across runs is its
// function and its rank among the goroutines of that function.
func GoroutineName(folder, name string) (fn string, id int64, ok bool) {
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
