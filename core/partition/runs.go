package partition

import (
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// RunType is the type of the containers that hold a file of several read
// as one trace.
const RunType = "Run"

// runSink passes the traces of several files, one after the other, to
// one sink as one trace: each file's hierarchy goes under a container of
// type RunType, and the types and values that files share (same kind,
// name, alias, parent and role; same type, name, alias, category and
// role) are defined once, so that a state type of every rank is one type;
// the role is in the key so that a file keeps what its reader said of a
// type (trace.Role) where another format names one the same.
type runSink struct {
	out      trace.Sink
	runType  int32
	types    map[string]int32
	values   map[string]int32
	nTypes   int32
	nValues  int32
	nConts   int32
	typeOf   []int32 // the current file's type ids -> out's
	valueOf  []int32
	contOf   []int32
	finished bool
	start    trace.Time
	end      trace.Time
}

func newRunSink(out trace.Sink) *runSink {
	return &runSink{out: out, types: map[string]int32{}, values: map[string]int32{}}
}

func (r *runSink) defineType(t trace.Type) int32 {
	key := fmt.Sprintf("%d\x00%s\x00%s\x00%d\x00%d\x00%d\x00%d", t.Kind, t.Name, t.Alias, t.Parent, t.Start, t.End, t.Role)
	if id, ok := r.types[key]; ok {
		return id
	}
	id := r.nTypes
	r.nTypes++
	r.types[key] = id
	r.out.DefineType(t)
	return id
}

// begin starts the file of run name: its root becomes a new container.
// job tells that the file is a whole job (ingest.Source.Job): its run is
// then an application (trace.RoleApplication), whose communicators are
// apart from the other runs'.
func (r *runSink) begin(name string, job bool) {
	role := trace.RoleNone
	if job {
		role = trace.RoleApplication
	}
	r.runType = r.defineType(trace.Type{Name: RunType, Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None, Role: role})
	r.typeOf, r.valueOf = r.typeOf[:0], r.valueOf[:0]
	r.nConts++
	r.out.CreateContainer(trace.Container{Name: name, Type: r.runType, Parent: 0, End: trace.Unset})
	r.contOf = append(r.contOf[:0], r.nConts)
}

func ref(ids []int32, i int32) int32 {
	if i < 0 || int(i) >= len(ids) {
		return trace.None
	}
	return ids[i]
}

func (r *runSink) DefineType(t trace.Type) {
	if t.Parent == trace.None {
		t.Parent = r.runType // what the file's root held, the run holds
	} else {
		t.Parent = ref(r.typeOf, t.Parent)
	}
	t.Start, t.End = ref(r.typeOf, t.Start), ref(r.typeOf, t.End)
	r.typeOf = append(r.typeOf, r.defineType(t))
}

func (r *runSink) DefineValue(v trace.Value) {
	v.Type = ref(r.typeOf, v.Type)
	key := fmt.Sprintf("%d\x00%s\x00%s\x00%s\x00%d", v.Type, v.Name, v.Alias, v.Category, v.Role)
	id, ok := r.values[key]
	if !ok {
		id = r.nValues
		r.nValues++
		r.values[key] = id
		r.out.DefineValue(v)
	}
	r.valueOf = append(r.valueOf, id)
}

func (r *runSink) CreateContainer(c trace.Container) {
	c.Type, c.Parent, c.Children = ref(r.typeOf, c.Type), ref(r.contOf, c.Parent), nil
	r.nConts++
	r.contOf = append(r.contOf, r.nConts)
	r.out.CreateContainer(c)
}

func (r *runSink) DestroyContainer(id int32, at trace.Time) {
	r.out.DestroyContainer(ref(r.contOf, id), at)
}

func (r *runSink) State(s trace.State) {
	s.Container, s.Type, s.Value = ref(r.contOf, s.Container), ref(r.typeOf, s.Type), ref(r.valueOf, s.Value)
	r.out.State(s)
}

func (r *runSink) Variable(v trace.Variable) {
	v.Container, v.Type = ref(r.contOf, v.Container), ref(r.typeOf, v.Type)
	r.out.Variable(v)
}

func (r *runSink) Link(l trace.Link) {
	l.Container, l.Type, l.Value = ref(r.contOf, l.Container), ref(r.typeOf, l.Type), ref(r.valueOf, l.Value)
	l.From, l.To = ref(r.contOf, l.From), ref(r.contOf, l.To)
	r.out.Link(l)
}

func (r *runSink) Event(e trace.Event) {
	e.Container, e.Type, e.Value = ref(r.contOf, e.Container), ref(r.typeOf, e.Type), ref(r.valueOf, e.Value)
	r.out.Event(e)
}

// Finish keeps the extent: the caller ends the whole trace.
func (r *runSink) Finish(start, end trace.Time) {
	if !r.finished {
		r.start, r.end, r.finished = start, end, true
	}
	r.start, r.end = min(r.start, start), max(r.end, end)
}

// Runs opens the files of plan's parts (a plan of PlanRuns) as one trace,
// each under its run container: the trace whose model the parts' partial
// models add up to.
func Runs(plan *Plan) (*ingest.Source, error) {
	srcs := make([]*ingest.Source, len(plan.Parts))
	whole, ordered := false, true
	var files []string
	for i, p := range plan.Parts {
		src, _, err := formats.Open(p.Path, p.Format, p.Options)
		if err != nil {
			return nil, err
		}
		srcs[i] = src
		whole = whole || src.Whole
		ordered = ordered && src.StartOrdered
		files = append(files, src.Files...)
	}
	read := func(sink trace.Sink, ro trace.ReadOptions) error {
		r := newRunSink(sink)
		var done, total int64
		for i, src := range srcs {
			r.begin(plan.Parts[i].Run, src.Job)
			sub := ro
			if ro.Progress != nil {
				// Each file reports its own bytes: count them after the files before.
				base := done
				sub.Progress = func(d, t int64) {
					total = t
					ro.Progress(base+d, base+t)
				}
			}
			if err := src.Read(r, sub); err != nil {
				return err
			}
			done += total
		}
		sink.Finish(r.start, r.end)
		return nil
	}
	return &ingest.Source{Read: read, Whole: whole, StartOrdered: ordered, Files: files}, nil
}
