package perfetto

import (
	"math"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The model side of the decoder: types, values and containers, defined on
// first use so that the sink gets each before anything refers to it.

// typeKey identifies a type: its kind, name and parent container type
// (links: their source and destination container types).
type typeKey struct {
	kind       trace.Kind
	name       string
	parent, to int32
}

type valueKey struct {
	typ  int32
	name string
}

// model hands out the dense indices of the sink.
type model struct {
	sink     trace.Sink
	types    map[typeKey]int32
	values   map[valueKey]int32
	nTypes   int32
	nValues  int32
	contType []int32 // container type of each container; the root's is None
	depth    []int32 // depth of each container below the root (the root's is 0)
	start    trace.Time
	text     ingest.ValidText // the names delivered, made valid UTF-8
	cache    *valueCache
	// named holds the name of every container created, under its parent;
	// lanes, the namer of the overlap lanes under each parent, which
	// gives them names no sibling has: neither one created (named) nor
	// one to come (tracks, the names of the trace's custom tracks).
	named  map[childName]bool
	lanes  map[int32]*trace.Lanes
	tracks map[string]bool
	// threadType is the state type of the CPUs' scheduling slices, whose
	// values name the thread that runs (trace.RoleScheduledThread); -1
	// before the first CPU.
	threadType int32
}

// childName is the name of a container under its parent.
type childName struct {
	parent int32
	name   string
}

func newModel(sink trace.Sink, start trace.Time) *model {
	cache := &valueCache{}
	for i := range cache {
		cache[i].id = -1
	}
	return &model{sink: sink, types: map[typeKey]int32{}, values: map[valueKey]int32{}, cache: cache, threadType: -1,
		contType: []int32{trace.None}, depth: []int32{0}, start: start, named: map[childName]bool{}, lanes: map[int32]*trace.Lanes{}}
}

// typ returns the type of kind named name whose containers are of type
// parent, defining it on first use.
func (m *model) typ(kind trace.Kind, name string, parent int32) int32 {
	k := typeKey{kind: kind, name: name, parent: parent, to: trace.None}
	if id, ok := m.types[k]; ok {
		return id
	}
	id := m.nTypes
	m.nTypes++
	m.types[k] = id
	m.sink.DefineType(trace.Type{Name: m.text.String(name), Kind: kind, Parent: parent, Start: trace.None, End: trace.None})
	return id
}

// linkType returns the type of flows from containers of type from to
// containers of type to, declared in the root.
func (m *model) linkType(from, to int32) int32 { return m.linkTypeNamed("Flow", from, to) }

// linkTypeNamed returns the type of links named name from containers of
// type from to containers of type to, declared in the root.
func (m *model) linkTypeNamed(name string, from, to int32) int32 {
	k := typeKey{kind: trace.KindLink, name: name, parent: from, to: to}
	if id, ok := m.types[k]; ok {
		return id
	}
	id := m.nTypes
	m.nTypes++
	m.types[k] = id
	m.sink.DefineType(trace.Type{Name: name, Kind: trace.KindLink, Parent: trace.None, Start: from, End: to})
	return id
}

// valueCache holds values met lately, found without hashing their
// names: a trace names its slices with a few names, many times.
type valueCache [256]struct {
	typ  int32
	id   int32
	name string
}

func (m *model) value(typ int32, name string) int32 {
	h := uint32(typ) * 0x9e3779b1
	if n := len(name); n > 0 {
		h += uint32(n)*31 + uint32(name[0])*7 + uint32(name[n-1])*131 + uint32(name[n/2])
	}
	slot := &m.cache[h&uint32(len(m.cache)-1)]
	if slot.typ == typ && slot.name == name && slot.id >= 0 {
		return slot.id
	}
	k := valueKey{typ, name}
	if id, ok := m.values[k]; ok {
		slot.typ, slot.name, slot.id = typ, name, id
		return id
	}
	id := m.nValues
	m.nValues++
	m.values[k] = id
	slot.typ, slot.name, slot.id = typ, name, id
	n := m.text.String(name)
	v := trace.Value{Type: typ, Name: n}
	if typ == m.threadType {
		// A thread on a CPU, "<thread name> [<tid>]": grouped by the
		// thread's name, which another producer's "Block [0]" is not.
		v.Role = trace.RoleScheduledThread
	} else if trace.OutlinedParallelBody(n) {
		// The compilers' OpenMP bodies, in the slices of an instrumented
		// program or the frames of a sampled one.
		v.Role = trace.RoleParallelRegion
	} else if trace.NCCLKernel(n) {
		// NCCL's kernels, on the GPU tracks of a trace converted from
		// Kineto's or Nsight Systems': the GPUs' collectives.
		v.Role = trace.RoleCommunicationKernel
	}
	m.sink.DefineValue(v)
	return id
}

// container creates a container of the container type named typeName
// under parent.
func (m *model) container(typeName, name, alias string, parent int32) int32 {
	t := m.typ(trace.KindContainer, typeName, m.contType[parent])
	id := int32(len(m.contType))
	m.contType = append(m.contType, t)
	m.depth = append(m.depth, m.depth[parent]+1)
	m.named[childName{parent, name}] = true
	m.sink.CreateContainer(trace.Container{Name: m.text.String(name), Alias: m.text.String(alias), Type: t, Parent: parent,
		Start: m.start, End: trace.Unset})
	return id
}

// laneName is the name of lane k of the container named name under
// parent (see trace.Lanes).
func (m *model) laneName(parent int32, name string, k int) string {
	l := m.lanes[parent]
	if l == nil {
		l = &trace.Lanes{Taken: func(s string) bool { return m.named[childName{parent, s}] || m.tracks[s] }}
		m.lanes[parent] = l
	}
	return l.Name(name, k)
}

// containers maps what the file identifies (tracks, pids, tids, CPUs) to
// containers, creating them and their ancestors on first use.
type containers struct {
	m       *model
	cat     *catalog
	tracks  map[uint64]int32
	procs   map[int32]int32
	threads map[int32]int32
	cpus    map[uint32]int32
	gpus    map[uint32]int32 // the GPUs of gpu_frequency events
	// undescribed counts the tracks events refer to without a descriptor.
	undescribed int64
	// cycles counts tracks whose parents loop, or nest too deep.
	cycles int64
	// groupOf is the lane group of each track that shares its name and
	// parent with others (see lanes.go); holding, the lane each such
	// track holds while an operation of it is open.
	groupOf map[uint64]*laneGroup
	holding map[uint64]int
}

func newContainers(m *model, cat *catalog) *containers {
	c := &containers{m: m, cat: cat, tracks: map[uint64]int32{}, procs: map[int32]int32{},
		threads: map[int32]int32{}, cpus: map[uint32]int32{}, gpus: map[uint32]int32{}}
	c.findLaneGroups()
	return c
}

func (c *containers) process(pid int32) int32 {
	if id, ok := c.procs[pid]; ok {
		return id
	}
	p := strconv.Itoa(int(pid))
	name := "Process " + p
	if n := c.cat.processName(pid); n != "" {
		name = n + " " + p
	}
	id := c.m.container("Process", name, p, 0)
	c.procs[pid] = id
	return id
}

// thread returns the container of thread tid; pid 0 takes the process the
// catalog knows, if any, else the thread sits under the root.
func (c *containers) thread(pid, tid int32) int32 {
	if id, ok := c.threads[tid]; ok {
		return id
	}
	if pid == 0 {
		pid = c.cat.threadPID[tid]
	}
	parent := int32(0)
	if pid != 0 {
		parent = c.process(pid)
	}
	t := strconv.Itoa(int(tid))
	name := "Thread " + t
	if n := c.cat.threadName(tid); n != "" {
		name = n + " " + t
	}
	id := c.m.container("Thread", name, t, parent)
	c.threads[tid] = id
	return id
}

// cpu is the container "CPU <n>" of type "CPU" under the root.
func (c *containers) cpu(n uint32) int32 { return c.numbered("CPU", c.cpus, n) }

// gpu is the container "GPU <n>" of type "GPU" under the root.
func (c *containers) gpu(n uint32) int32 { return c.numbered("GPU", c.gpus, n) }

// numbered returns the container "<typ> <n>" of type typ under the root,
// made at its first use and kept in made.
func (c *containers) numbered(typ string, made map[uint32]int32, n uint32) int32 {
	if id, ok := made[n]; ok {
		return id
	}
	s := strconv.FormatUint(uint64(n), 10)
	id := c.m.container(typ, typ+" "+s, s, 0)
	made[n] = id
	return id
}

// maxTrackDepth bounds the chain of parents followed: deeper, the parents
// are taken to loop. It bounds the depth of a track's container too: the
// chain followed from one track stops at a track already made, which may
// be that deep already (tracks used from the top of a chain down, each
// maxTrackDepth below the last, would nest without end: a hierarchy
// whose recursive walks overflow a goroutine's stack, see trace.MaxDepth).
const maxTrackDepth = 256

// track returns the container of the track uuid (not a counter track):
// its thread, its process, or a container of type "Track" under its
// parent track's container, or under the root.
func (c *containers) track(uuid uint64) int32 {
	return c.trackAt(uuid, 0)
}

func (c *containers) trackAt(uuid uint64, depth int) int32 {
	if id, ok := c.tracks[uuid]; ok {
		return id
	}
	if g := c.groupOf[uuid]; g != nil {
		return c.firstLane(g)
	}
	t := c.cat.tracks[uuid]
	var id int32
	switch {
	case t == nil && uuid == 0:
		id = c.m.container("Track", "Global", "0", 0)
	case t == nil:
		c.undescribed++
		s := strconv.FormatUint(uuid, 10)
		id = c.m.container("Track", "Track "+s, s, 0)
	case t.kind == trackThread:
		id = c.thread(t.pid, t.tid)
	case t.kind == trackProcess:
		id = c.process(t.pid)
	default:
		parent := c.trackParent(uuid, t, depth)
		if id, ok := c.tracks[uuid]; ok { // created while creating its parents (a loop)
			return id
		}
		if c.m.depth[parent] >= maxTrackDepth {
			c.cycles++
			parent = 0
		}
		s := strconv.FormatUint(uuid, 10)
		name := t.name
		if name == "" {
			name = "Track " + s
		}
		id = c.m.container("Track", name, s, parent)
	}
	c.tracks[uuid] = id
	return id
}

// trackParent returns the container of the parent of custom track t
// (uuid), at depth in a chain of parents: its parent track's, else the
// root.
func (c *containers) trackParent(uuid uint64, t *trackInfo, depth int) int32 {
	if !t.hasParent || t.parent == uuid {
		return 0
	}
	if depth >= maxTrackDepth {
		c.cycles++
		return 0
	}
	if pt := c.cat.tracks[t.parent]; pt == nil || pt.kind != trackCounter {
		return c.trackAt(t.parent, depth+1)
	}
	return 0
}

// counterParent returns the container that holds the variable of counter
// track t: its parent track's, else the root.
func (c *containers) counterParent(t *trackInfo, uuid uint64) int32 {
	if !t.hasParent || t.parent == uuid {
		return 0
	}
	if pt := c.cat.tracks[t.parent]; pt != nil && pt.kind == trackCounter {
		return 0
	}
	return c.track(t.parent)
}

// nan is the size of links, which the format does not give.
var nan = math.NaN()
