// Package stragglers finds the resources that hold the others back: for
// every instance of a synchronising operation, the member that arrives
// last, how much later than the next latest (its lateness) and how much
// waiting it caused (the others' time from their arrival to its); then
// per resource, how often it was last and by how much. It is the
// straggler analysis of Nsight Systems' nccl_straggler recipe and HTA's
// straggler analysis, on the collectives of a message-passing run or on
// the iterations of any trace:
//
//   - collectives (the default): an instance is a collective operation,
//     paired across its members as the mpi package pairs them; a member
//     arrives when it enters the call;
//   - iterations (Options.Iteration, a pattern of state names such as
//     "ProfilerStep*", "ncclKernel*" or an NVTX range): instance k is the
//     k-th state so named on each resource (in the order they begin);
//     a member arrives when the state ends, so the last is the one that
//     finishes its k-th iteration last. Where every resource's name is
//     shared by others under other parents (the "stream 84" and "stream
//     203" of each GPU, one per NCCL communicator), the k-th instances
//     meet within each name only.
//
// By default the collectives are taken where the trace has any; a trace
// without (a GPU or machine-learning profile) falls back to the first of
// DefaultIterations found on at least two resources: the NCCL kernels of
// the GPUs' streams (the collectives of a GPU run, as Nsight Systems'
// recipe takes them: the states of role trace.RoleCommunicationKernel),
// then the program's steps (trace.RoleStep, RoleStepCall: PyTorch's
// ProfilerStep iterations of the ranks' Kineto files read together, on
// their CPU threads, not the copies Kineto draws on the GPU streams; JAX's
// StepTraceAnnotation steps of the hosts' XSpace files). The
// readers, which know these names, give the roles. Result.Iteration
// names the default chosen.
//
// The Accumulator is a trace.Sink: it keeps only the collective calls or
// the iterations' extents.
package stragglers

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/mpi"
)

// Options choose the instances.
type Options struct {
	// Iteration, when not empty, is a pattern (path.Match's: * and ?) of
	// state names: instance k is the k-th state so named on each
	// resource. Empty: the collective operations, or where there are
	// none the first of DefaultIterations found on two resources.
	Iteration string
	// Cancel, once closed, stops Compute (while it replays the trace)
	// and Result, which return trace.ErrComputationCanceled and no
	// result. Nil: never.
	Cancel <-chan struct{}
}

// DefaultIterations name, as patterns of the names their states have
// (Result.Iteration), the iterations a trace without collective
// operations falls back to, in order: NCCL's GPU kernels
// ("ncclKernel_AllReduce_RING_LL_Sum_float", "ncclDevKernel_SendRecv":
// the states of role trace.RoleCommunicationKernel), one per collective
// on each GPU in the order the ranks call them; then the program's steps
// (trace.RoleStep, RoleStepCall: PyTorch profiler's "ProfilerStep#12").
// The defaults are taken by role (defaultRoles), not by these patterns.
var DefaultIterations = []string{"nccl*Kernel*", "ProfilerStep*"}

// stepIterations is the index of the steps in DefaultIterations.
const stepIterations = 1

// stepsLabel names the steps taken by role (Result.Iteration): the
// pattern "ProfilerStep*" where they are all PyTorch's, else their names
// (JAX's steps are all "train"), the first three in order and "..." for
// more, so that a label never names states the trace does not have.
func (a *Accumulator) stepsLabel(iters map[int32][]iteration) string {
	var names []string
	for _, its := range iters {
		for _, it := range its {
			names = append(names, a.names[it.name])
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if !slices.ContainsFunc(names, func(n string) bool { return !strings.HasPrefix(n, "ProfilerStep") }) {
		return DefaultIterations[stepIterations]
	}
	if len(names) > 3 {
		names = append(names[:3], "...")
	}
	return strings.Join(names, ", ")
}

// defaultIteration is the index in DefaultIterations of the iterations
// of a value of role r, -1 for none.
func defaultIteration(r trace.Role) int8 {
	switch r {
	case trace.RoleCommunicationKernel:
		return 0
	case trace.RoleStep, trace.RoleStepCall:
		return stepIterations
	}
	return -1
}

// Instance is one synchronising operation and its last arrival.
type Instance struct {
	Name  string // the operation or state name
	Group string // the communicator (collectives), "" when unknown
	// Members' arrivals, by member (Resources index, Arrivals instant).
	Members  []int32
	Arrivals []trace.Time
	Last     int32      // the member arriving last (Resources index)
	At       trace.Time // its arrival
	// Lateness is its arrival minus the next latest; WaitCaused the
	// others' time from their arrivals to its.
	Lateness, WaitCaused trace.Time
}

// Resource sums a resource's lateness.
type Resource struct {
	Resource   string
	TimesLast  int
	Share      float64 // of the instances it belongs to
	Lateness   trace.Time
	WaitCaused trace.Time
	Instances  int // instances it belongs to
}

// Result is the straggler analysis of a run.
type Result struct {
	Resources  []string
	Instances  []Instance
	Mode       string // "collectives" or "iterations"
	Iteration  string // the pattern of the iterations' names, or the steps' (stepsLabel); "" for collectives
	Start, End trace.Time
}

// Accumulator gathers the instances while a trace streams by.
type Accumulator struct {
	opt Options
	mpi *mpi.Builder
	// Iterations: the patterns tried (Options.Iteration, or
	// DefaultIterations behind the collectives), and by pattern the
	// matching states' extents, by container.
	patterns   []string
	types      []trace.Kind
	match      []int8 // by state value: the first pattern its name matches, or -1
	names      []string
	containers []container
	iters      []map[int32][]iteration
	start, end trace.Time
	done       bool
	err        error
}

type container struct {
	name   string
	parent int32
}

type iteration struct {
	start, end trace.Time
	name       int32
}

// New returns an accumulator, or an *errs.ArgumentError for a bad
// pattern.
func New(opt Options) (*Accumulator, error) {
	if opt.Iteration != "" {
		if _, err := path.Match(opt.Iteration, ""); err != nil {
			return nil, errs.Argument("iteration", "%q is not a pattern of state names: %v", opt.Iteration, err)
		}
	}
	a := &Accumulator{opt: opt, containers: []container{{name: "0", parent: trace.None}}}
	a.patterns = []string{opt.Iteration}
	if opt.Iteration == "" {
		a.mpi = mpi.NewBuilder()
		a.mpi.CollectivesOnly = true
		a.mpi.Cancel = opt.Cancel                    // Result's gathering of the calls stops too
		a.patterns = slices.Clone(DefaultIterations) // its own: the variable may change later
	}
	for range a.patterns {
		a.iters = append(a.iters, map[int32][]iteration{})
	}
	return a, nil
}

// Compute finds the stragglers of a trace held in memory.
func Compute(t *trace.Trace, opt Options) (*Result, error) {
	a, err := New(opt)
	if err != nil {
		return nil, err
	}
	if err := t.ReplayCancel(a, opt.Cancel); err != nil {
		return nil, err
	}
	return a.Result()
}

// DefineType implements trace.Sink.
func (a *Accumulator) DefineType(t trace.Type) {
	if a.mpi != nil {
		a.mpi.DefineType(t)
	}
	a.types = append(a.types, t.Kind)
}

// DefineValue implements trace.Sink.
func (a *Accumulator) DefineValue(v trace.Value) {
	if a.mpi != nil {
		a.mpi.DefineValue(v)
	}
	first := int8(-1)
	state := v.Type >= 0 && int(v.Type) < len(a.types) && a.types[v.Type] == trace.KindState
	if state && a.opt.Iteration == "" {
		first = defaultIteration(v.Role)
	} else if state {
		for i, p := range a.patterns {
			if ok, _ := path.Match(p, v.Name); ok {
				first = int8(i)
				break
			}
		}
	}
	a.match = append(a.match, first)
	a.names = append(a.names, v.Name)
}

// CreateContainer implements trace.Sink.
func (a *Accumulator) CreateContainer(c trace.Container) {
	if a.mpi != nil {
		a.mpi.CreateContainer(c)
	}
	if c.Parent < 0 || int(c.Parent) >= len(a.containers) {
		c.Parent = 0
	}
	a.containers = append(a.containers, container{name: c.Name, parent: c.Parent})
}

// DestroyContainer implements trace.Sink.
func (a *Accumulator) DestroyContainer(id int32, at trace.Time) {
	if a.mpi != nil {
		a.mpi.DestroyContainer(id, at)
	}
}

// State implements trace.Sink.
func (a *Accumulator) State(s trace.State) {
	if a.mpi != nil {
		a.mpi.State(s) // it reports what it cannot read
	}
	if s.Value < 0 || int(s.Value) >= len(a.match) {
		if a.err == nil && a.mpi == nil {
			a.err = fmt.Errorf("stragglers: state of unknown value %d", s.Value)
		}
		return
	}
	if p := a.match[s.Value]; p >= 0 {
		a.iters[p][s.Container] = append(a.iters[p][s.Container], iteration{s.Start, s.End, s.Value})
	}
}

// Variable implements trace.Sink.
func (a *Accumulator) Variable(trace.Variable) {}

// Link implements trace.Sink.
func (a *Accumulator) Link(trace.Link) {}

// Event implements trace.Sink.
func (a *Accumulator) Event(e trace.Event) {
	if a.mpi != nil {
		a.mpi.Event(e)
	}
}

// Finish implements trace.Sink.
func (a *Accumulator) Finish(start, end trace.Time) {
	if a.mpi != nil {
		a.mpi.Finish(start, end)
	}
	a.start, a.end, a.done = start, end, true
}

// Result returns the instances once the trace has finished.
func (a *Accumulator) Result() (*Result, error) {
	if a.err != nil {
		return nil, a.err
	}
	if !a.done {
		return nil, fmt.Errorf("stragglers: the trace has not finished")
	}
	look := &trace.Looker{Cancel: a.opt.Cancel}
	if err := look.Stopped(0); err != nil {
		return nil, err
	}
	r := &Result{Start: a.start, End: a.end}
	if a.mpi != nil {
		run, err := a.mpi.Run()
		if err != nil {
			return nil, err
		}
		r.Mode = "collectives"
		for _, res := range run.Resources {
			r.Resources = append(r.Resources, res.Path)
		}
		if err := look.Stopped(0); err != nil { // after the calls' pass
			return nil, err
		}
		for _, c := range run.Collectives {
			if err := look.Stopped(len(c.Members)); err != nil {
				return nil, err
			}
			in := Instance{Name: run.Names[c.Name], Group: run.Comms[c.Comm]}
			for _, m := range c.Members {
				in.Members = append(in.Members, m.Resource)
				in.Arrivals = append(in.Arrivals, run.Call(m).Enter)
			}
			r.add(in)
		}
		if len(run.Collectives) > 0 {
			return r, nil
		}
		for p, iters := range a.iters {
			if len(iters) >= 2 {
				return a.iterations(p, &Result{Start: a.start, End: a.end}, look)
			}
		}
		// No argument was wrong (none names the iterations): the data
		// hold nothing to compare, a failure naming the file (status 1).
		return nil, errs.Empty("", "stragglers do not apply to this trace as it is: it has no collective operation (MPI calls named MPI_Allreduce, "+
			"MPI_Barrier...), nor NCCL kernels or steps (ProfilerStep#N, JAX's StepTraceAnnotation) on two resources: give iteration= a "+
			"pattern of state names whose instances synchronise the resources")
	}
	return a.iterations(0, r, look)
}

// iterations completes r with the instances of the states matching
// pattern p: the k-th of each resource.
func (a *Accumulator) iterations(p int, r *Result, look *trace.Looker) (*Result, error) {
	r.Mode, r.Iteration = "iterations", a.patterns[p]
	if a.opt.Iteration == "" && p == stepIterations {
		r.Iteration = a.stepsLabel(a.iters[p])
	}
	ids := make([]int32, 0, len(a.iters[p]))
	for id := range a.iters[p] {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var most int
	for _, id := range ids {
		r.Resources = append(r.Resources, a.path(id))
		its := a.iters[p][id]
		if err := look.Stopped(len(its)); err != nil { // sorted
			return nil, err
		}
		slices.SortStableFunc(its, func(x, y iteration) int { return cmp.Compare(x.start, y.start) })
		most = max(most, len(its))
	}
	if len(ids) < 2 {
		return nil, errs.Argument("iteration", "the states named %q occur on %d resource(s): stragglers need at least two",
			a.patterns[p], len(ids))
	}
	lanes := a.lanes(ids)
	for _, lane := range lanes {
		for k := range most {
			if err := look.Stopped(len(lane)); err != nil {
				return nil, err
			}
			in := Instance{}
			for _, i := range lane {
				its := a.iters[p][ids[i]]
				if k < len(its) {
					in.Members = append(in.Members, int32(i))
					in.Arrivals = append(in.Arrivals, its[k].end)
					in.Name = a.names[its[k].name]
				}
			}
			r.add(in)
		}
	}
	if len(lanes) > 1 {
		slices.SortStableFunc(r.Instances, func(x, y Instance) int { return cmp.Compare(x.At, y.At) })
	}
	return r, nil
}

// lanes splits the resources ids (indices into ids) into the sets whose
// k-th instances meet: resources of the same name under different
// parents ("stream 84" of each GPU, one per NCCL communicator, as
// PyTorch creates them in the same order on every rank) when every name
// is shared so; otherwise all of them together (each rank's own thread,
// "Stream 7" on one GPU and "Stream 15" on the other).
func (a *Accumulator) lanes(ids []int32) [][]int {
	byName := map[string]int{}
	var lanes [][]int
	for i, id := range ids {
		name := a.containers[id].name
		l, ok := byName[name]
		if !ok {
			l = len(lanes)
			byName[name] = l
			lanes = append(lanes, nil)
		}
		lanes[l] = append(lanes[l], i)
	}
	for _, lane := range lanes {
		if len(lane) < 2 {
			lanes = nil
			break
		}
	}
	if len(lanes) < 2 {
		all := make([]int, len(ids))
		for i := range all {
			all[i] = i
		}
		return [][]int{all}
	}
	return lanes
}

// add completes an instance (its last arrival) and keeps it when it has
// at least two members.
func (r *Result) add(in Instance) {
	if len(in.Members) < 2 {
		return
	}
	last, second := -1, -1
	for i, t := range in.Arrivals {
		switch {
		case last < 0 || t > in.Arrivals[last]:
			last, second = i, last
		case second < 0 || t > in.Arrivals[second]:
			second = i
		}
	}
	in.Last, in.At = in.Members[last], in.Arrivals[last]
	in.Lateness = in.At - in.Arrivals[second]
	for _, t := range in.Arrivals {
		in.WaitCaused += in.At - t
	}
	r.Instances = append(r.Instances, in)
}

// ByResource sums the instances by resource: the most often last first.
func (r *Result) ByResource() []Resource {
	out := make([]Resource, len(r.Resources))
	for i := range out {
		out[i].Resource = r.Resources[i]
	}
	for _, in := range r.Instances {
		for _, m := range in.Members {
			out[m].Instances++
		}
		o := &out[in.Last]
		o.TimesLast++
		o.Lateness += in.Lateness
		o.WaitCaused += in.WaitCaused
	}
	for i := range out {
		if out[i].Instances > 0 {
			out[i].Share = float64(out[i].TimesLast) / float64(out[i].Instances)
		}
	}
	slices.SortStableFunc(out, func(x, y Resource) int {
		return cmp.Or(cmp.Compare(y.TimesLast, x.TimesLast), cmp.Compare(y.WaitCaused, x.WaitCaused))
	})
	return out
}

func (a *Accumulator) path(id int32) string {
	return trace.JoinPath(id, "/", func(c int32) (string, int32) { return a.containers[c].name, a.containers[c].parent })
}
