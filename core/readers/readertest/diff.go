package readertest

import (
	"strconv"
	"strings"
)

// FirstDiff shows the first line where two outputs differ, and how many
// lines each has: what a test comparing a writer with its oracle prints.
func FirstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n  got:  " + gl + "\n  want: " + wl +
				"\n(" + strconv.Itoa(len(g)) + " lines against " + strconv.Itoa(len(w)) + ")"
		}
	}
	return "(same output)"
}
