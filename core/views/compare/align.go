package compare

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Method says how the runs' times are put on one axis (docs/compare.md,
// "Alignment" has each one's limits).
type Method string

const (
	// Stretch cuts each run's own extent, first to last instant, into the
	// same number of slices: slice k is the same fraction of every run,
	// whatever its duration. The default. It hides durations (Run.Duration
	// and the seconds columns tell them), and a local slowdown shifts every
	// later phase of its run.
	Stretch Method = "stretch"
	// Start counts each run's time from its own first instant, over a
	// common window of Length: equal slices in seconds. Past a run's end
	// its cells are Absent. Phases drift apart when a run is slower.
	Start Method = "start"
	// Absolute keeps the times as recorded: runs on one clock (the ranks
	// of one job) over the window from the earliest start to the latest
	// end; before a run starts and after it ends its cells are Absent.
	Absolute Method = "absolute"
	// Markers warps each run piecewise linearly between markers the trace
	// carries (the starts of the program's steps, such as PyTorch's
	// ProfilerStep#N, or of named states or events), matched across runs:
	// segment k of every run gets the same slices. See MarkerSpec.
	Markers Method = "markers"
	// Auto reads every run's extent first and chooses Start when the
	// runs' durations are within AutoTolerance of each other (repetitions
	// of one configuration: a perturbation local in time stays local),
	// else Stretch (runs of different lengths, a scaling study: phases
	// meet at the same fraction of each run). Set.AlignReason says which
	// and why. It never chooses Markers (a full read of every run to find
	// them) nor Absolute (runs on one clock are rarely what is compared).
	Auto Method = "auto"
)

// AutoTolerance is the largest relative difference of the runs'
// durations (longest / shortest - 1) for which Auto aligns their starts:
// over a run 5% longer, aligned by starts, the last 5% of the axis is
// that run alone, which stays small beside what a local change adds.
const AutoTolerance = 0.05

// ParseMethod reads an alignment method name; empty is Stretch.
func ParseMethod(s string) (Method, error) {
	switch m := Method(strings.ToLower(strings.TrimSpace(s))); m {
	case Stretch, Start, Absolute, Markers, Auto:
		return m, nil
	case "":
		return Stretch, nil
	}
	return "", errs.Argument("align", "unknown alignment %q (use %q, %q, %q, %q or %q)", s, Stretch, Start, Absolute, Markers, Auto)
}

// Length says how long the common window of Start alignment is.
type Length struct {
	// Rule is "max" (the longest run: shorter runs end Absent, the
	// default), "min" (the shortest: longer runs are cut) or "" with
	// Seconds set.
	Rule    string
	Seconds float64
}

// ParseLength reads "max", "min" or a number of seconds.
func ParseLength(s string) (Length, error) {
	switch s = strings.ToLower(strings.TrimSpace(s)); s {
	case "", "max":
		return Length{Rule: "max"}, nil
	case "min":
		return Length{Rule: "min"}, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return Length{}, errs.Argument("length", `must be "max", "min" or a positive number of seconds, got %q`, s)
	}
	return Length{Seconds: v}, nil
}

// MarkerSpec says which instants of a trace are the markers of Markers
// alignment.
type MarkerSpec struct {
	// Name matches the markers: the name of a state or event value, with
	// "*" standing for any text ("ProfilerStep*", "iteration *"). Empty
	// means the steps of the program's main loop, as their readers mark
	// them (values of role trace.RoleStep or RoleStepCall: PyTorch
	// profiler's ProfilerStep#N in Kineto, in Nsight Systems' NVTX ranges
	// and in roctx ranges; JAX's StepTraceAnnotation in XSpace files),
	// numbered by their Step: whatever the
	// producer, with no name to give.
	Name string
	// By says how markers are matched across runs: "number" (the step's
	// number, or with a Name the last number in the name: ProfilerStep#12
	// of one run with ProfilerStep#12 of another) or "ordinal" (the k-th
	// marker of each run). Empty means "number" when every marker has a
	// number (steps always have one), else "ordinal".
	By string
	// Resource is the path (names joined by "/") of the container whose
	// markers count, or a suffix of it; empty means the first container
	// holding a marker, in the order they appear.
	Resource string
}

// matcher compiles the spec's name into a regular expression; nil for
// the steps (no name).
func (s MarkerSpec) matcher() (*regexp.Regexp, error) {
	switch s.By {
	case "", "number", "ordinal":
	default:
		return nil, errs.Argument("markers", `by must be "number" or "ordinal", got %q`, s.By)
	}
	if s.Name == "" {
		return nil, nil
	}
	parts := strings.Split(s.Name, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	re, err := regexp.Compile("^" + strings.Join(parts, ".*") + "$")
	if err != nil {
		return nil, errs.Argument("markers", "bad marker name %q: %v", s.Name, err)
	}
	return re, nil
}

// what says what the spec's markers are, for messages.
func (s MarkerSpec) what() string {
	if s.Name == "" {
		return "no step of its main loop (a state its reader marks as a step: PyTorch profiler's ProfilerStep#N " +
			`in Kineto, Nsight Systems or rocprof traces, JAX's StepTraceAnnotation in XSpace files); give the name of the states or events that mark its iterations (markers="iteration*")`
	}
	return fmt.Sprintf("no state or event named like %q", s.Name)
}

// Align is how the runs' times are aligned.
type Align struct {
	Method  Method
	Length  Length     // Start alignment
	Markers MarkerSpec // Markers alignment
}

// marker is one marker of a run: its key (number or ordinal), start, and
// the end of the state that makes it (the start for an event).
type marker struct {
	key        int64
	start, end trace.Time
}

// markerSink finds the markers of a trace as it is read, and its extent.
// It keeps the markers only, never the trace.
type markerSink struct {
	re       *regexp.Regexp // nil: the steps
	spec     MarkerSpec
	types    []trace.Type
	match    []bool // by value
	keys     []int64
	numbered []bool   // by value: keys[v] is its number
	parents  []int32  // container parents
	names    []string // container names
	// by container: markers found (with the state's depth)
	found   map[int32][]depthMarker
	order   []int32 // containers in the order of their first marker
	extent  [2]trace.Time
	numbers bool // every marker name has a number
	any     bool
}

type depthMarker struct {
	marker
	depth int32
}

func newMarkerSink(spec MarkerSpec) (*markerSink, error) {
	re, err := spec.matcher()
	if err != nil {
		return nil, err
	}
	return &markerSink{re: re, spec: spec, parents: []int32{trace.None}, names: []string{""},
		found: map[int32][]depthMarker{}, numbers: true}, nil
}

func (m *markerSink) DefineType(t trace.Type) { m.types = append(m.types, t) }
func (m *markerSink) DefineValue(v trace.Value) {
	var match, numbered bool
	var key int64
	if m.re == nil {
		match = v.Role == trace.RoleStep || v.Role == trace.RoleStepCall
		key, numbered = int64(v.Step), true
	} else {
		match = m.re.MatchString(v.Name)
		key, numbered = lastNumber(v.Name)
	}
	m.match = append(m.match, match)
	m.keys = append(m.keys, key)
	m.numbered = append(m.numbered, numbered)
}
func (m *markerSink) CreateContainer(c trace.Container) {
	m.parents = append(m.parents, c.Parent)
	m.names = append(m.names, c.Name)
}
func (m *markerSink) DestroyContainer(int32, trace.Time) {}
func (m *markerSink) Variable(trace.Variable)            {}
func (m *markerSink) Link(trace.Link)                    {}
func (m *markerSink) Finish(start, end trace.Time)       { m.extent = [2]trace.Time{start, end} }

func (m *markerSink) State(s trace.State) {
	if s.Value >= 0 && int(s.Value) < len(m.match) && m.match[s.Value] {
		m.add(s.Container, s.Value, s.Start, s.End, s.Depth)
	}
}

func (m *markerSink) Event(e trace.Event) {
	if e.Value >= 0 && int(e.Value) < len(m.match) && m.match[e.Value] {
		m.add(e.Container, e.Value, e.Time, e.Time, 0)
	}
}

func (m *markerSink) add(c, v int32, start, end trace.Time, depth int32) {
	if _, ok := m.found[c]; !ok {
		m.order = append(m.order, c)
	}
	m.found[c] = append(m.found[c], depthMarker{marker{key: m.keys[v], start: start, end: end}, depth})
	if !m.numbered[v] {
		m.numbers = false
	}
	m.any = true
}

func (m *markerSink) path(c int32) string {
	var parts []string
	for ; c > 0; c = m.parents[c] {
		parts = append(parts, m.names[c])
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, "/")
}

var numberRe = regexp.MustCompile(`(\d+)\D*$`)

// lastNumber returns the last number in a name.
func lastNumber(name string) (int64, bool) {
	g := numberRe.FindStringSubmatch(name)
	if g == nil {
		return 0, false
	}
	v, err := strconv.ParseInt(g[1], 10, 64)
	return v, err == nil
}

// markers returns the run's markers, sorted by start: those of the chosen
// container, outermost only (a marker nested in a marker of the same name
// pattern is left out), keyed by number or ordinal. byNumber tells which.
func (m *markerSink) markers(byNumber bool) ([]marker, string, error) {
	if !m.any {
		return nil, "", errs.Argument("markers", "%s", m.spec.what())
	}
	var c int32 = -1
	if m.spec.Resource == "" {
		c = m.order[0]
	} else {
		for _, k := range m.order {
			if p := m.path(k); p == m.spec.Resource || strings.HasSuffix(p, "/"+m.spec.Resource) {
				c = k
				break
			}
		}
		if c < 0 {
			return nil, "", errs.Argument("markers", "no container %q holds a marker", m.spec.Resource)
		}
	}
	list := m.found[c]
	minDepth := int32(math.MaxInt32)
	for _, d := range list {
		minDepth = min(minDepth, d.depth)
	}
	var out []marker
	for _, d := range list {
		if d.depth != minDepth {
			continue
		}
		out = append(out, d.marker)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].start < out[j].start })
	if !byNumber {
		for i := range out {
			out[i].key = int64(i)
		}
	}
	// Numbers seen twice: keep the first.
	seen := map[int64]bool{}
	kept := out[:0]
	for _, mk := range out {
		if !seen[mk.key] {
			seen[mk.key] = true
			kept = append(kept, mk)
		}
	}
	return kept, m.path(c), nil
}

// boundaries returns the instants that cut a run into segments: the
// starts of its markers and the end of the last one (its start for an
// event).
func boundaries(ms []marker) []trace.Time {
	out := make([]trace.Time, 0, len(ms)+1)
	for _, m := range ms {
		out = append(out, m.start)
	}
	if last := ms[len(ms)-1]; last.end > last.start {
		out = append(out, last.end)
	}
	return out
}

// commonMarkers keeps, in every run, the markers whose key every run has;
// it returns them and the number each run dropped.
func commonMarkers(runs [][]marker) ([][]marker, []int) {
	count := map[int64]int{}
	for _, ms := range runs {
		for _, m := range ms {
			count[m.key]++
		}
	}
	out := make([][]marker, len(runs))
	dropped := make([]int, len(runs))
	for r, ms := range runs {
		for _, m := range ms {
			if count[m.key] == len(runs) {
				out[r] = append(out[r], m)
			} else {
				dropped[r]++
			}
		}
	}
	return out, dropped
}

// segmentSlices shares n slices among segments of the given lengths, in
// proportion to them (largest remainders), at least one each.
func segmentSlices(lengths []float64, n int) ([]int, error) {
	k := len(lengths)
	if n < k {
		return nil, errs.Argument("slices", "%d slices cannot cover %d marker segments (one slice each at least): use more slices", n, k)
	}
	total := 0.0
	for _, l := range lengths {
		total += l
	}
	out := make([]int, k)
	type rest struct {
		i int
		r float64
	}
	var rests []rest
	used := 0
	for i, l := range lengths {
		share := float64(n-k) * l / total
		if total <= 0 {
			share = float64(n-k) / float64(k)
		}
		out[i] = 1 + int(math.Floor(share))
		used += out[i]
		rests = append(rests, rest{i, share - math.Floor(share)})
	}
	sort.SliceStable(rests, func(a, b int) bool { return rests[a].r > rests[b].r })
	for j := 0; used < n; j++ {
		out[rests[j%k].i]++
		used++
	}
	return out, nil
}

// warp maps a run's times piecewise linearly onto the common axis: from
// run boundary from[k] to axis boundary to[k]. Before the first boundary
// and after the last, times keep the first and last segment's rate
// (outside the common window, so the model clips them).
type warp struct {
	from []trace.Time
	to   []trace.Time
}

func (w *warp) at(t trace.Time) trace.Time {
	k := sort.Search(len(w.from), func(i int) bool { return w.from[i] > t }) - 1
	k = max(0, min(k, len(w.from)-2))
	a, b := w.from[k], w.from[k+1]
	u, v := w.to[k], w.to[k+1]
	if b == a {
		return u
	}
	x := float64(t-a) * float64(v-u) / float64(b-a)
	return u + trace.Time(math.Round(x))
}

// warpSink passes a trace on with its times warped (see warp). Warping is
// monotone, so the order and nesting of states are kept.
type warpSink struct {
	out trace.Sink
	w   *warp
}

func (s *warpSink) DefineType(t trace.Type)   { s.out.DefineType(t) }
func (s *warpSink) DefineValue(v trace.Value) { s.out.DefineValue(v) }
func (s *warpSink) CreateContainer(c trace.Container) {
	c.Start = s.w.at(c.Start)
	if c.End != trace.Unset {
		c.End = s.w.at(c.End)
	}
	s.out.CreateContainer(c)
}
func (s *warpSink) DestroyContainer(id int32, at trace.Time) { s.out.DestroyContainer(id, s.w.at(at)) }
func (s *warpSink) State(st trace.State) {
	st.Start, st.End = s.w.at(st.Start), s.w.at(st.End)
	s.out.State(st)
}
func (s *warpSink) Variable(v trace.Variable) {
	v.Start, v.End = s.w.at(v.Start), s.w.at(v.End)
	s.out.Variable(v)
}
func (s *warpSink) Link(l trace.Link) {
	l.Start, l.End = s.w.at(l.Start), s.w.at(l.End)
	s.out.Link(l)
}
func (s *warpSink) Event(e trace.Event) {
	e.Time = s.w.at(e.Time)
	s.out.Event(e)
}
func (s *warpSink) Finish(start, end trace.Time) { s.out.Finish(s.w.at(start), s.w.at(end)) }

// Defer passes the call on to a sink that takes it (trace.DeferSink).
func (s *warpSink) Defer() {
	if d, ok := s.out.(trace.DeferSink); ok {
		d.Defer()
	}
}

// KeepsArgs and Args pass arguments on to a sink that keeps them.
func (s *warpSink) KeepsArgs() bool {
	a, ok := s.out.(trace.ArgsSink)
	return ok && a.KeepsArgs()
}
func (s *warpSink) Args(kind trace.Kind, index int, json string) {
	if a, ok := s.out.(trace.ArgsSink); ok {
		a.Args(kind, index, json)
	}
}
