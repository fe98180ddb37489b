package pjdump

import (
	"io"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// headerLines are pj_dump's column names for each nature; the Event line
// is pj_dump's, oddities included.
var headerLines = map[trace.Kind]string{
	trace.KindContainer: "Container, Parent, Type, Start, End, Duration, Name\n",
	trace.KindLink:      "Link, Container, Type, Start, End, Duration, Value, StartContainer, EndContainer\n",
	trace.KindEvent:     "Event, Container, Variable, Value, Start, Value\n",
	trace.KindVariable:  "Variable, Container, Type, Start, End, Duration, Value\n",
	trace.KindState:     "State, Container, Type, Start, End, Duration, Imbrication, Value\n",
}

// writeHeader writes the header pj_dump -h prints before the dump: the
// column names of containers, then those of each nature of entity the
// dump holds, in the order the dump first shows one.
func writeHeader(w io.Writer, t *trace.Trace) error {
	x := newIndex(t, writeOptions{})
	order := []trace.Kind{trace.KindContainer}
	seen := map[trace.Kind]bool{trace.KindContainer: true}
	x.walk(func(int32) {}, func(c, ty int32) {
		kind := t.Types[ty].Kind
		if e := x.ents[slot{c, ty}]; e != nil && !seen[kind] {
			seen[kind] = true
			order = append(order, kind)
		}
	})
	for _, k := range order {
		if _, err := io.WriteString(w, headerLines[k]); err != nil {
			return err
		}
	}
	return nil
}
