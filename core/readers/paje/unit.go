package paje

import (
	"bytes"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Pajé does not say the unit of its dates: PajeNG and SimGrid use
// seconds, and so does the reader, but StarPU's starpu_fxt_tool writes
// milliseconds (paje.trace, like its tasks.rec), so that a StarPU run of
// one second read as seconds would last a thousand. The units and the
// rule that tells StarPU's traces are trace's, shared with pj_dump's CSV
// reader (package pjcsv).

// inUnit converts a date parsed as seconds to the trace's unit.
func (o *Options) inUnit(t trace.Time) trace.Time { return trace.InUnit(t, o.TimeUnit) }

// writesMilliseconds reports whether the first bytes of a Pajé trace are
// of a producer that writes its dates in milliseconds: they hold the
// container types starpu_fxt_tool defines (trace.StarPUContainerTypes),
// or those NGSolve's ngcore defines (ngsolveContainerTypes): each a field
// of some event line, quoted (as both write them) or not, split as the
// reader splits fields. Definition lines (%...) and the last line, which
// the head may cut, are not looked at. Both write milliseconds.
func writesMilliseconds(head []byte) bool {
	names := append(slices.Clip(trace.StarPUContainerTypes), ngsolveContainerTypes...)
	seen := make([]bool, len(names))
	var spans []span
	for pos := 0; pos < len(head); {
		n := bytes.IndexByte(head[pos:], '\n')
		if n < 0 {
			break
		}
		end := pos + n
		if head[pos] != '%' {
			spans, _ = appendFields(head, pos, end, spans[:0])
			for _, f := range spans {
				for i, name := range names {
					seen[i] = seen[i] || string(head[f.from:f.to]) == name
				}
			}
		}
		pos = end + 1
	}
	has := func(name string) bool {
		i := slices.Index(names, name)
		return i >= 0 && seen[i]
	}
	if trace.LooksStarPU(has) {
		return true
	}
	for _, name := range ngsolveContainerTypes {
		if !has(name) {
			return false
		}
	}
	return true
}

// ngsolveContainerTypes are the container types of the traces NGSolve's
// ngcore writes (PajeTrace, paje_trace.cpp: a "Task Manager" holding a
// "Node" of "Thread"s and the "Jobs"), whose dates are milliseconds
// (its ConvertTime).
var ngsolveContainerTypes = []string{"Task Manager", "Node", "Thread", "Jobs"}
