package compare

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Per-operation counts and durations of PyTorch profiler (Kineto) traces,
// as HTA's TraceDiff.compare_traces computes them (docs/compare.md,
// "Operations"): every state of a value with a category and not of role
// trace.RoleRecording (the profiler's own span) is an operation; on the
// CPU (no stream) it belongs to the step (a value of role trace.RoleStep
// or RoleStepCall, numbered by the value's Step) whose span holds its
// start, on a GPU stream to the step of the call that launched it: where
// the launch link (trace.RoleLaunch, RoleLaunchSynced or a value of
// RoleLaunchFlow) that ends at its start leaves; counts and inclusive
// durations are summed by name (or short name) over the chosen iterations
// and device. The stream of each operation is its reader's to tell
// (trace.StreamSink): only the reader knows where its format writes it.
// Nothing here reads a name, a category's text or an argument.

// Device selects the operations of a device kind.
type Device string

const (
	AllDevices Device = "ALL"
	CPU        Device = "CPU" // no stream (or -1)
	GPU        Device = "GPU" // on a stream
)

// ParseDevice reads ALL, CPU or GPU (any case; empty is ALL).
func ParseDevice(s string) (Device, error) {
	switch d := Device(strings.ToUpper(strings.TrimSpace(s))); d {
	case AllDevices, CPU, GPU:
		return d, nil
	case "":
		return AllDevices, nil
	}
	return "", errs.Argument("device", "unknown device %q (use ALL, CPU or GPU)", s)
}

// opRecord is one operation as read.
type opRecord struct {
	container  int32
	value      int32
	start, dur trace.Time
	stream     int32 // trace.StreamSink's; -1: none
}

// launchEnd is where a launch link ends (a GPU operation's start on its
// stream).
type launchEnd struct {
	container int32
	at        trace.Time
}

// OpsSink collects, while a trace is read, what Ops needs of it: a small
// record per state with its stream, the names, roles and steps of the
// values, whether they have a category, and the launch links. It keeps
// no other part of the trace.
type OpsSink struct {
	names   []string
	hasCat  []bool
	roles   []trace.Role
	steps   []int32
	launchT []bool // by type: its links are launches
	records []opRecord
	// launches maps a launch's end to its start (the call's time); the
	// first link delivered to an end wins.
	launches map[launchEnd]trace.Time
}

// NewOpsSink returns an empty sink.
func NewOpsSink() *OpsSink {
	return &OpsSink{launches: map[launchEnd]trace.Time{}}
}

func (o *OpsSink) DefineType(t trace.Type) {
	o.launchT = append(o.launchT, t.Kind == trace.KindLink && (t.Role == trace.RoleLaunch || t.Role == trace.RoleLaunchSynced))
}
func (o *OpsSink) DefineValue(v trace.Value) {
	o.names = append(o.names, v.Name)
	o.hasCat = append(o.hasCat, v.Category != "")
	o.roles = append(o.roles, v.Role)
	o.steps = append(o.steps, v.Step)
}
func (o *OpsSink) CreateContainer(trace.Container)    {}
func (o *OpsSink) DestroyContainer(int32, trace.Time) {}
func (o *OpsSink) Variable(trace.Variable)            {}
func (o *OpsSink) Event(trace.Event)                  {}
func (o *OpsSink) Finish(trace.Time, trace.Time)      {}

// Link records a launch: a link of a launch type, or of a launch value
// (trace.RoleLaunchFlow, the Chrome reader's flows).
func (o *OpsSink) Link(l trace.Link) {
	launch := l.Type >= 0 && int(l.Type) < len(o.launchT) && o.launchT[l.Type]
	if !launch && l.Value >= 0 && int(l.Value) < len(o.roles) && o.roles[l.Value] == trace.RoleLaunchFlow {
		launch = true
	}
	if !launch {
		return
	}
	k := launchEnd{l.To, l.End}
	if _, ok := o.launches[k]; !ok {
		o.launches[k] = l.Start
	}
}

// State records a state.
func (o *OpsSink) State(s trace.State) {
	v := s.Value
	if v < 0 || int(v) >= len(o.names) {
		v = -1
	}
	o.records = append(o.records, opRecord{container: s.Container, value: v, start: s.Start, dur: s.End - s.Start, stream: -1})
}

// StateStream records the stream a state ran on (trace.StreamSink; its
// index is the order of delivery).
func (o *OpsSink) StateStream(index int, stream int32) {
	if index >= 0 && index < len(o.records) {
		o.records[index].stream = stream
	}
}

// operation tells whether the states of value v are operations: those of
// a category, other than the profiler's own span (trace.RoleRecording).
func (o *OpsSink) operation(v int) bool { return o.hasCat[v] && o.roles[v] != trace.RoleRecording }

// opKey is an aggregation cell of a run's operations.
type opKey struct {
	name      string
	iteration int64
	gpu       bool
}

// OpsSummary is a run's operations, counted and summed by name,
// iteration and device: the records are released.
type OpsSummary struct {
	cells      map[opKey]opCell
	Iterations []int64 // the numbers of the steps (trace.Value.Step), sorted
	// File is the run's trace, which Ops' messages name; its caller sets
	// it.
	File string
}

type opCell struct {
	count int64
	dur   trace.Time
}

// Summary assigns the recorded operations to iterations and devices and
// aggregates them; the sink's records are released.
func (o *OpsSink) Summary() *OpsSummary {
	type step struct {
		start, end trace.Time
		n          int64
	}
	stepOf := make([]int64, len(o.names))
	iterSet := map[int64]bool{}
	for v := range o.names {
		stepOf[v] = -1
		if r := o.roles[v]; r == trace.RoleStep || r == trace.RoleStepCall {
			k := int64(o.steps[v])
			iterSet[k] = true
			if o.operation(v) {
				stepOf[v] = k
			}
		}
	}
	var steps []step
	for _, r := range o.records {
		if r.value >= 0 && stepOf[r.value] >= 0 {
			steps = append(steps, step{r.start, r.start + r.dur, stepOf[r.value]})
		}
	}
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].start < steps[j].start })
	iterationAt := func(t trace.Time) int64 {
		it := int64(-1)
		// Steps do not overlap on the CPU; should they, the latest to
		// start wins, as HTA's scan in file order does for a profiler
		// writing steps in order.
		i := sort.Search(len(steps), func(i int) bool { return steps[i].start > t })
		for j := i - 1; j >= 0; j-- {
			if t < steps[j].end {
				it = steps[j].n
				break
			}
			if j < i-64 { // far enough back: no step that long
				break
			}
		}
		return it
	}
	sum := &OpsSummary{cells: map[opKey]opCell{}}
	for _, r := range o.records {
		if r.value < 0 || !o.operation(int(r.value)) {
			continue
		}
		it := int64(-1)
		switch {
		case r.stream < 0:
			it = iterationAt(r.start)
		case r.stream == 0 && o.roles[r.value].HostCall():
			// A host call with a stream (Kineto's Triton launches): on
			// the stream, in the iteration of its time, as HTA has it.
			it = iterationAt(r.start)
		case r.stream == 0:
		default:
			// The iteration of the launching call, which the launch
			// link leaves at its start.
			if at, ok := o.launches[launchEnd{r.container, r.start}]; ok {
				it = iterationAt(at)
			}
		}
		k := opKey{o.names[r.value], it, r.stream != -1}
		c := sum.cells[k]
		c.count++
		c.dur += r.dur
		sum.cells[k] = c
	}
	for k := range iterSet {
		sum.Iterations = append(sum.Iterations, k)
	}
	sort.Slice(sum.Iterations, func(i, j int) bool { return sum.Iterations[i] < sum.Iterations[j] })
	o.records = nil
	o.launches = nil
	return sum
}

// OpsOptions select the operations compared, as compare_traces' arguments.
type OpsOptions struct {
	// Iterations of each run: nil means each run's first iteration (HTA's
	// default); All every iteration.
	Iterations [2][]int64
	All        bool
	Device     Device
	// ShortNames groups by HTA's short names (template and function
	// arguments and return types stripped).
	ShortNames bool
}

// Op is a row of the operations table; durations in microseconds, as
// HTA's.
type Op struct {
	Name                string
	Counts              [2]float64
	Durations           [2]float64 // microseconds
	DiffCounts, DiffDur float64
	Change              string // "+", "-" or "="
}

// Ops returns compare_traces' table of a control and a test run, in its
// row order: the control's names sorted, then the names only the test
// has, sorted, and warnings: what a run lacks of the selection (an
// iteration asked for, any operation of the device in the iterations),
// where the table's rows are zeros for want of it, not for a change. A
// run with no operation at all (a trace of another producer than
// PyTorch's profiler, whose reader gives no categories), or, for its
// first iteration, none in an iteration, is an error naming its file.
func Ops(control, test *OpsSummary, opt OpsOptions) ([]Op, []string, error) {
	dev, err := ParseDevice(string(opt.Device))
	if err != nil {
		return nil, nil, err
	}
	var warnings []string
	pick := func(s *OpsSummary, side int) (map[string]*[2]float64, error) {
		file := s.File
		if file == "" {
			file = [2]string{"the control run", "the test run"}[side]
		}
		n := int64(0)
		for _, c := range s.cells {
			n += c.count
		}
		if n == 0 {
			return nil, errs.Empty(s.File, "no operator-level states to compare (states of a category, as Kineto's cpu_op, "+
				"cuda_runtime and kernel): HTA TraceDiff's operations are those of PyTorch profiler (Kineto) traces, "+
				"and this trace's reader gives its states no category")
		}
		its := opt.Iterations[side]
		if len(s.Iterations) == 0 {
			none := fmt.Sprintf("%s has no iteration: none of its %d operations is in a step of PyTorch's profiler "+
				"(ProfilerStep#N), by which HTA's TraceDiff counts them", file, n)
			if !opt.All && its == nil { // no first iteration to take
				return nil, errs.Argument("iteration", "%s", none)
			}
			warnings = append(warnings, none+": its counts are zeros")
			return map[string]*[2]float64{}, nil
		}
		if opt.All {
			its = s.Iterations
		} else if its == nil {
			its = s.Iterations[:1]
		}
		want := map[int64]bool{}
		var missing []int64
		for _, it := range its {
			want[it] = true
			if _, ok := slices.BinarySearch(s.Iterations, it); !ok {
				missing = append(missing, it)
			}
		}
		if len(missing) > 0 {
			in := "iteration"
			if len(missing) > 1 {
				in = "iterations"
			}
			warnings = append(warnings, fmt.Sprintf("%s has no %s %s (its iterations: %s): its counts there are zeros",
				file, in, iterationList(missing), iterationList(s.Iterations)))
		}
		// Sum the cells of a name in integers: float sums in the map's
		// random order made the last digits differ from run to run.
		sums := map[string]opCell{}
		for k, c := range s.cells {
			if !want[k.iteration] || (dev == CPU && k.gpu) || (dev == GPU && !k.gpu) {
				continue
			}
			name := k.name
			if opt.ShortNames {
				name = ShortName(name)
			}
			t := sums[name]
			t.count += c.count
			t.dur += c.dur
			sums[name] = t
		}
		if len(sums) == 0 && len(missing) < len(its) {
			what := "operation"
			if dev != AllDevices {
				what = string(dev) + " operation"
			}
			in := "iteration"
			if len(its) > 1 {
				in = "iterations"
			}
			warnings = append(warnings, fmt.Sprintf("%s has no %s in %s %s: its counts are zeros", file, what, in, iterationList(its)))
		}
		out := make(map[string]*[2]float64, len(sums))
		for name, c := range sums {
			out[name] = &[2]float64{float64(c.count), float64(c.dur) / 1e3}
		}
		return out, nil
	}
	a, err := pick(control, 0)
	if err != nil {
		return nil, nil, err
	}
	b, err := pick(test, 1)
	if err != nil {
		return nil, nil, err
	}
	var first, rest []string
	for n := range a {
		first = append(first, n)
	}
	for n := range b {
		if a[n] == nil {
			rest = append(rest, n)
		}
	}
	sort.Strings(first)
	sort.Strings(rest)
	var out []Op
	for _, n := range append(first, rest...) {
		op := Op{Name: n}
		if v := a[n]; v != nil {
			op.Counts[0], op.Durations[0] = v[0], v[1]
		}
		if v := b[n]; v != nil {
			op.Counts[1], op.Durations[1] = v[0], v[1]
		}
		op.DiffCounts = op.Counts[1] - op.Counts[0]
		op.DiffDur = op.Durations[1] - op.Durations[0]
		switch {
		case op.DiffCounts > 0:
			op.Change = "+"
		case op.DiffCounts < 0:
			op.Change = "-"
		default:
			op.Change = "="
		}
		out = append(out, op)
	}
	return out, warnings, nil
}

// iterationList writes iteration numbers, sorted, runs of consecutive
// ones as ranges: "3", "1009-1014", "1, 4-6", at most 8 items.
func iterationList(its []int64) string {
	its = slices.Clone(its)
	slices.Sort(its)
	its = slices.Compact(its)
	var parts []string
	for i := 0; i < len(its); {
		j := i
		for j+1 < len(its) && its[j+1] == its[j]+1 {
			j++
		}
		if len(parts) == 8 {
			parts = append(parts, "...")
			break
		}
		if j == i {
			parts = append(parts, strconv.FormatInt(its[i], 10))
		} else {
			parts = append(parts, strconv.FormatInt(its[i], 10)+"-"+strconv.FormatInt(its[j], 10))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

var memoryKernel = regexp.MustCompile(`^(Memcpy|Memset|dma)`)

// ShortName shortens an operator or kernel name as HTA does: memory
// kernels and names without "<" or "(" are kept; otherwise "->" is
// dropped, template and function arguments (between matched "<" ">" and
// "(" ")") removed, and the last space-separated word kept (dropping a
// return type).
func ShortName(name string) string {
	if memoryKernel.MatchString(name) || (!strings.Contains(name, "<") && !strings.Contains(name, "(")) {
		return name
	}
	s := strings.ReplaceAll(name, "->", "")
	stack := make([]rune, 0, len(s))
	for _, c := range s {
		switch c {
		case '>', ')':
			open := '<'
			if c == ')' {
				open = '('
			}
			for len(stack) > 0 && stack[len(stack)-1] != open {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		default:
			stack = append(stack, c)
		}
	}
	words := strings.Split(string(stack), " ")
	return words[len(words)-1]
}
