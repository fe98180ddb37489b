package paje

import (
	"bytes"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Pajé does not say the unit of its dates: PajeNG and SimGrid use
// seconds, and so does the reader, but StarPU's starpu_fxt_tool writes
// milliseconds (paje.trace, like its tasks.rec), so that a StarPU run of
// one second read as seconds would last a thousand.

// timeUnits are the values of the time_unit option.
var timeUnits = map[string]trace.Time{
	"s": trace.Second, "ms": trace.Second / 1e3, "us": trace.Second / 1e6, "ns": trace.Nanosecond,
}

// inUnit converts a date parsed as seconds to the trace's unit.
func (o *Options) inUnit(t trace.Time) trace.Time {
	if o.TimeUnit <= 0 || o.TimeUnit == trace.Second {
		return t
	}
	return t / (trace.Second / o.TimeUnit)
}

// looksStarPU reports whether the first bytes of a Pajé trace hold the
// container types starpu_fxt_tool defines (StarPU 1.1 to 1.4: a
// "Program" of "Memory Node"s whose threads are "Worker"s).
func looksStarPU(head []byte) bool {
	return bytes.Contains(head, []byte(`"Memory Node"`)) && bytes.Contains(head, []byte(`"Program"`)) &&
		bytes.Contains(head, []byte(`"Worker"`))
}
