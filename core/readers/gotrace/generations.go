package gotrace

import (
	"fmt"

	xtrace "golang.org/x/exp/trace"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// generations follows the generations the parser delivers, so that a
// trace broken after its first generation can keep what came before the
// fault. The parser emits a Sync event at the start of each generation
// and one more before it reports an error in the next one: the events
// before the last Sync belong to whole, checked generations.
type generations struct {
	syncs    int   // Sync events seen
	whole    int64 // events (Sync excluded) before the last Sync
	after    int64 // events since the last Sync
	lastSync trace.Time
}

func (g *generations) count(in *input) {
	if in.kind != xtrace.EventSync {
		g.after++
		return
	}
	g.syncs++
	g.whole += g.after
	g.after = 0
	g.lastSync = trace.Time(in.time)
}

// usable reports whether at least one whole generation with events was
// delivered before the fault.
func (g *generations) usable() bool { return g.whole > 0 }

// note records why the trace is incomplete: the parser's error, and how
// much of the trace before it is kept.
func (g *generations) note(opt trace.ReadOptions, err error) {
	whole := g.syncs - 1 // the last Sync opens the generation that broke
	msg := fmt.Sprintf("%v; the %d whole generation(s) before it are read (%d events), the rest of the trace is missing", err, whole, g.whole)
	if g.after > 0 {
		msg += fmt.Sprintf(", and %d events of the broken generation were read before the fault", g.after)
	}
	opt.Incomplete("%s", msg)
}
