package partition

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Local builds the model of a plan's trace on this machine, its parts on
// all cores: the parts' extents give the window (cheap where the reader
// probes: OTF2 reads timestamps only), then workers goroutines (the
// number of CPUs Go uses when workers < 1) each read a part into a
// partial model, and the partials are merged in the plan's order. The
// model is the one the whole trace's reader gives (micro.FromSource),
// bit for bit, without a global merge of the parts' records by time: the
// model adds up per part.
//
// Progress reports count the bytes of every part; the parts read share
// ro's cancellation, and the first error stops the others. An error names
// its part. The notes of the parts are added to ro.Notes: skip counts
// summed, a remark several parts make (the archive's own) once.
func Local(plan *Plan, opt micro.Options, ro trace.ReadOptions, workers int) (*micro.Model, *micro.Summary, error) {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	n := len(plan.Parts)
	if n == 0 {
		return nil, nil, errors.New("partition: a plan without parts")
	}
	workers = min(workers, n)
	run := newLocalRun(n, ro)
	defer run.stop()

	start, end := trace.Time(math.MaxInt64), trace.Time(math.MinInt64)
	if opt.Start == nil || opt.End == nil || opt.Relative {
		starts, ends := make([]trace.Time, n), make([]trace.Time, n)
		if err := run.each(workers, func(i int, pro trace.ReadOptions) (err error) {
			starts[i], ends[i], err = Extent(plan.Parts[i], true, pro)
			return err
		}, plan); err != nil {
			return nil, nil, err
		}
		start, end = slices.Min(starts), slices.Max(ends)
		run.reset()
	}
	// A window counting from the trace's start is resolved on the
	// extent guessed, and again on the extent found if the guess was wrong.
	abs, err := opt.Resolve(start, end)
	if err != nil {
		return nil, nil, err
	}
	start, end = abs.Window(start, end)
	for passes := 1; ; passes++ {
		merged, notes, err := buildParts(run, plan, abs, start, end, workers)
		if err != nil {
			return nil, nil, err
		}
		m, err := merged.Model()
		if err == nil && opt.Relative && opt.HasWindow() {
			// Counted from a guessed start: the start found must give the
			// same window.
			if found, ferr := opt.Resolve(merged.Start, merged.End); ferr != nil {
				err = ferr
			} else if s, e := found.Window(merged.Start, merged.End); s != start || e != end {
				err = micro.ErrWindow
			}
		}
		if errors.Is(err, micro.ErrWindow) && passes < 2 {
			// The guess of the window (the extents the readers guessed,
			// see Extent) was wrong: build again with the window found.
			if abs, err = opt.Resolve(merged.Start, merged.End); err != nil {
				return nil, nil, err
			}
			start, end = abs.Window(merged.Start, merged.End)
			run.reset()
			continue
		}
		addNotes(ro.Notes, notes)
		if err != nil {
			return nil, nil, err
		}
		return m, &micro.Summary{Counts: merged.Counts, Start: merged.Start, End: merged.End, Passes: passes}, nil
	}
}

// LocalPlan returns the plan of the read of the trace at path, in format
// (its name, "" to detect it) with the reader options opt, on the cores
// of this machine (Local), or nil to read it as one stream. parallel
// forces the read by parts (true), forbids it (false), or leaves it to
// the trace (nil): by parts when its format's parts add up to the whole
// (ingest.Parts.Separable: an OTF2 archive whose metric series each come
// from one location group) and it has several. That default is exact and
// not slower: on one core too, it spares the merge of all the locations'
// records by time. The formats whose parts only pay off across machines
// (byte ranges, trace lines) are read as one stream, and so is a read
// whose options already select a part, or a trace that cannot be planned
// (the stream's read reports why).
func LocalPlan(path, format string, opt ingest.Values, parallel *bool) *Plan {
	if parallel != nil && !*parallel {
		return nil
	}
	f, err := formatOf(path, format)
	if err != nil || f.Parts == nil || f.Parts.Separable == nil {
		return nil
	}
	if v, err := f.Check(opt); err != nil || f.Parts.IsPart != nil && f.Parts.IsPart(v) {
		return nil
	}
	if parallel == nil {
		if ok, err := f.Parts.Separable(path); err != nil || !ok {
			return nil
		}
	}
	// Up to 64 parts, or 8 per CPU: the goroutines of Local take them as
	// they finish, which balances parts of unequal sizes. Every part holds
	// the hierarchy until the parts are merged: thousands of location
	// groups are read in fewer parts, of several groups each.
	plan, err := PlanFile(path, f.Name, opt, max(64, 8*runtime.GOMAXPROCS(0)))
	if err != nil || len(plan.Parts) < 2 {
		return nil
	}
	return plan
}

// FromSource builds the model of the trace opened as src: by plan's
// parts on all cores (Local) when plan is not nil (LocalPlan), else as
// one stream (micro.FromSource). States that do not nest within a part
// (micro.ErrNesting) fall back on the one stream, which keeps the whole
// trace then.
func FromSource(src *ingest.Source, plan *Plan, opt micro.Options, ro trace.ReadOptions) (*micro.Model, *micro.Summary, error) {
	if plan == nil {
		return micro.FromSource(src, opt, ro)
	}
	m, sum, err := Local(plan, opt, ro, 0)
	if errors.Is(err, micro.ErrNesting) {
		return micro.FromSource(src, opt, ro)
	}
	return m, sum, err
}

// buildParts builds the partial models of the plan's parts on the window
// [start, end] and merges them, with the notes of the parts' reads.
func buildParts(run *localRun, plan *Plan, opt micro.Options, start, end trace.Time, workers int) (*micro.Partial, []*trace.Notes, error) {
	n := len(plan.Parts)
	partials := make([]*micro.Partial, n)
	notes := make([]*trace.Notes, n)
	pairs := pairing(plan)
	ends := make([]ingest.Ends, n)
	// Parts one after the other (the files of a run) are merged as they
	// come, in order: the partials held are the merge of the first parts
	// and those read ahead of a slower one, not one per part (a part's
	// definitions, its values' names, are mostly the others'). Parts
	// merged by time, or whose links are paired at the end, are merged at
	// once at the end.
	fold := &folder{order: plan.Order, on: plan.Order == micro.ByPart && pairs == nil, parts: partials}
	if err := run.each(workers, func(i int, pro trace.ReadOptions) (err error) {
		notes[i] = &trace.Notes{}
		pro.Notes = notes[i]
		var p *micro.Partial
		if p, ends[i], err = build(plan.Parts[i], opt, start, end, pro, pairs != nil); err != nil {
			return err
		}
		return fold.add(i, p)
	}, plan); err != nil {
		return nil, nil, err
	}
	if fold.on {
		return fold.merged, notes, nil
	}
	if slices.ContainsFunc(ends, func(e ingest.Ends) bool { return !none(e) }) {
		// The links between parts (the messages between location groups),
		// paired as the read of the whole trace pairs them: a part of
		// their own, last.
		p, err := matchMessages(plan.Parts[0].Path, pairs, ends, opt, start, end, partials)
		if err != nil {
			return nil, nil, err
		}
		partials = append(partials, p)
	}
	merged, err := micro.Merge(plan.Order, partials...)
	return merged, notes, err
}

// folder merges the partials of parts in order as they arrive (when on),
// else keeps them in parts.
type folder struct {
	order  micro.Order
	on     bool
	mu     sync.Mutex
	parts  []*micro.Partial // by part: read, not merged yet
	next   int              // the first part not merged
	merged *micro.Partial   // the parts before next
}

func (f *folder) add(i int, p *micro.Partial) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.parts[i] = p
	if !f.on {
		return nil
	}
	for ; f.next < len(f.parts) && f.parts[f.next] != nil; f.next++ {
		// The first part is merged alone, as Merge of all the parts would
		// count it.
		with := []*micro.Partial{f.parts[f.next]}
		if f.merged != nil {
			with = []*micro.Partial{f.merged, f.parts[f.next]}
		}
		m, err := micro.Merge(f.order, with...)
		if err != nil {
			return err
		}
		f.merged = m
		f.parts[f.next] = nil
	}
	return nil
}

// pairing returns how the links between the plan's parts are paired when
// the parts are parts of one trace whose format pairs them (the location
// groups of an OTF2 archive), nil otherwise.
func pairing(plan *Plan) *ingest.Parts {
	first := plan.Parts[0]
	f, err := formats.ByName(first.Format)
	if err != nil || f.Parts == nil || f.Parts.PairEnds == nil || f.Parts.IsPart == nil {
		return nil
	}
	for _, p := range plan.Parts {
		if p.Format != first.Format || p.Path != first.Path || p.Run != "" {
			return nil
		}
		if v, err := f.Check(p.Options); err != nil || !f.Parts.IsPart(v) {
			return nil
		}
	}
	return f.Parts
}

// localRun is what the parts read at once share: the bytes read, for
// progress, and the cancellation, the caller's or the first error's.
type localRun struct {
	ro      trace.ReadOptions
	cancel  chan struct{}
	once    sync.Once
	watched chan struct{} // closed when the run ends, to stop watching ro.Cancel
	mu      sync.Mutex
	done    []int64 // bytes read by part
	total   []int64 // bytes by part, 0 until its reader tells
}

func newLocalRun(n int, ro trace.ReadOptions) *localRun {
	r := &localRun{ro: ro, cancel: make(chan struct{}), watched: make(chan struct{}),
		done: make([]int64, n), total: make([]int64, n)}
	if ro.Cancel != nil {
		go func() {
			select {
			case <-ro.Cancel:
				r.abort()
			case <-r.watched:
			}
		}()
	}
	return r
}

func (r *localRun) abort() { r.once.Do(func() { close(r.cancel) }) }
func (r *localRun) stop()  { close(r.watched) }

// reset forgets the bytes counted, for the next pass over the parts.
func (r *localRun) reset() {
	r.mu.Lock()
	clear(r.done)
	clear(r.total)
	r.mu.Unlock()
}

// progress records part i's report and reports the sum: the parts whose
// size is not known yet count as the mean of those known.
func (r *localRun) progress(i int, done, total int64) {
	if r.ro.Progress == nil {
		return
	}
	// Reported under the lock: the sums reach the caller in order.
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done[i], r.total[i] = done, total
	var d, t int64
	known := 0
	for k := range r.done {
		d += r.done[k]
		if r.total[k] > 0 {
			t += r.total[k]
			known++
		}
	}
	if known > 0 {
		t += t / int64(known) * int64(len(r.total)-known)
	}
	r.ro.Progress(d, max(t, d))
}

// each calls fn for every part on workers goroutines, each with read
// options that report progress and stop on cancellation. It returns the
// first error, naming its part; the caller's cancellation wins over the
// errors it caused.
func (r *localRun) each(workers int, fn func(i int, ro trace.ReadOptions) error, plan *Plan) error {
	jobs := make(chan int)
	var first atomic.Pointer[error]
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				pro := trace.ReadOptions{Cancel: r.cancel}
				if r.ro.Progress != nil {
					pro.Progress = func(done, total int64) { r.progress(i, done, total) }
				}
				if err := fn(i, pro); err != nil {
					if !errors.Is(err, trace.ErrCanceled) {
						err = fmt.Errorf("%s: %w", plan.Parts[i].Label, err)
					}
					first.CompareAndSwap(nil, &err)
					r.abort()
				}
			}
		}()
	}
feed:
	for i := range plan.Parts {
		select {
		case jobs <- i:
		case <-r.cancel:
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := r.ro.Canceled(); err != nil {
		return err
	}
	if p := first.Load(); p != nil {
		return *p
	}
	return nil
}

// addNotes adds the parts' notes to n in the parts' order: the skip
// counts summed, each remark once (every part of an archive makes the
// archive's own remarks).
func addNotes(n *trace.Notes, parts []*trace.Notes) {
	for _, p := range parts {
		n.AddNew(p)
	}
}
