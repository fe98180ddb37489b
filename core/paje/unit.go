package paje

import (
	"bytes"
	"strconv"

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

// looksStarPU reports whether the first bytes of a Pajé trace hold the
// container types starpu_fxt_tool defines (trace.StarPUContainerTypes),
// quoted as it writes them.
func looksStarPU(head []byte) bool {
	return trace.LooksStarPU(func(name string) bool {
		return bytes.Contains(head, []byte(strconv.Quote(name)))
	})
}
