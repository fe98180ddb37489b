package trace

import (
	"fmt"
	"slices"
	"sync"
)

// Notes collect what a reader skipped, tolerated or found missing, so that
// the user is told (trace.warnings, the command's output) instead of
// getting a smaller trace without a word. A nil *Notes ignores everything,
// so readers call its methods without checking.
type Notes struct {
	mu         sync.Mutex
	skipped    map[string]int64
	order      []string
	warnings   []string
	incomplete []string
}

// Skip counts n entries of the given kind ("events of phase 'P'") that
// the reader did not model.
func (n *Notes) Skip(what string, count int64) {
	if n == nil || count == 0 {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.skipped == nil {
		n.skipped = map[string]int64{}
	}
	if _, ok := n.skipped[what]; !ok {
		n.order = append(n.order, what)
	}
	n.skipped[what] += count
}

// Warn records a remark about the input, worded like fmt.Sprintf.
func (n *Notes) Warn(format string, args ...any) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.warnings = append(n.warnings, fmt.Sprintf(format, args...))
}

// Incomplete records that the trace read lacks part of what the input was
// meant to hold (a cut last record, a missing companion file), and why.
func (n *Notes) Incomplete(format string, args ...any) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.incomplete = append(n.incomplete, fmt.Sprintf(format, args...))
}

// Skipped returns the counts of what was skipped, by kind.
func (n *Notes) Skipped() map[string]int64 {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make(map[string]int64, len(n.skipped))
	for k, v := range n.skipped {
		out[k] = v
	}
	return out
}

// IncompleteReasons returns why the trace is incomplete; none if it is
// complete.
func (n *Notes) IncompleteReasons() []string {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.incomplete...)
}

// Messages words every note for the user: the reasons the trace is
// incomplete, the warnings, then one line per kind of skipped entry, in the
// order first met.
func (n *Notes) Messages() []string {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for _, r := range n.incomplete {
		out = append(out, "incomplete: "+r)
	}
	out = append(out, n.warnings...)
	for _, what := range n.order {
		out = append(out, fmt.Sprintf("skipped %d %s", n.skipped[what], what))
	}
	return out
}

// Skip counts entries the reader did not model (see Notes.Skip).
func (o ReadOptions) Skip(what string, count int64) { o.Notes.Skip(what, count) }

// Warn records a remark about the input (see Notes.Warn).
func (o ReadOptions) Warn(format string, args ...any) { o.Notes.Warn(format, args...) }

// Incomplete records that part of the input is missing (see
// Notes.Incomplete).
func (o ReadOptions) Incomplete(format string, args ...any) { o.Notes.Incomplete(format, args...) }

// Add appends the notes of o to n: its reasons, warnings and skip counts.
func (n *Notes) Add(o *Notes) {
	if n == nil || o == nil || n == o {
		return
	}
	o.mu.Lock()
	incomplete := append([]string(nil), o.incomplete...)
	warnings := append([]string(nil), o.warnings...)
	order := append([]string(nil), o.order...)
	skipped := make(map[string]int64, len(o.skipped))
	for k, v := range o.skipped {
		skipped[k] = v
	}
	o.mu.Unlock()
	n.mu.Lock()
	n.incomplete = append(n.incomplete, incomplete...)
	n.warnings = append(n.warnings, warnings...)
	n.mu.Unlock()
	for _, what := range order {
		n.Skip(what, skipped[what])
	}
}

// AddNew is Add without the reasons and warnings n has already: it adds
// the notes of the parts of one input, read apart, each of which repeats
// what the input itself lacks.
func (n *Notes) AddNew(o *Notes) {
	if n == nil || o == nil || n == o {
		return
	}
	n.mu.Lock()
	had := map[string]bool{}
	for _, s := range n.incomplete {
		had["i"+s] = true
	}
	for _, s := range n.warnings {
		had["w"+s] = true
	}
	n.mu.Unlock()
	fresh := &Notes{}
	fresh.Add(o)
	fresh.incomplete = slices.DeleteFunc(fresh.incomplete, func(s string) bool { return had["i"+s] })
	fresh.warnings = slices.DeleteFunc(fresh.warnings, func(s string) bool { return had["w"+s] })
	n.Add(fresh)
}

// Unended counts the states a reader ends with the trace (or with the
// recording of their thread) because their end never came, and on how many
// containers: a trace cut short leaves them so, and the time they are given
// is then a guess the user should know of. Report says it in the same words
// for every reader. The zero value is ready to use.
type Unended struct {
	n      int64
	places map[int32]struct{}
}

// Add counts n states of place (a container, or the reader's own index of
// a location) ended at the end.
func (u *Unended) Add(place int32, n int64) {
	if n <= 0 {
		return
	}
	if u.places == nil {
		u.places = map[int32]struct{}{}
	}
	u.places[place] = struct{}{}
	u.n += n
}

// Count returns the states counted and the places they were on.
func (u *Unended) Count() (states int64, places int) { return u.n, len(u.places) }

// Report warns of the states counted, if any: what names them ("regions
// (Enter without Leave)"), where names their places ("locations") and how
// says where they were ended ("they end with it, at 1.5 s").
func (u *Unended) Report(opt ReadOptions, what, where, how string) {
	if u.n == 0 {
		return
	}
	opt.Warn("%d %s were still open at the end of the trace, on %d %s: %s", u.n, what, len(u.places), where, how)
}
