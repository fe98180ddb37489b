package nsys

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
)

// Nsight Systems serializes the identity of a thread as a global id:
// hardware and virtual machine in the top 16 bits, the process id in the
// next 24, the thread id in the low 24. A process's global id is its
// threads' with the thread bits cleared.
const (
	tidBits  = 24
	pidBits  = 24
	idMask   = 1<<24 - 1
	hostBits = tidBits + pidBits
)

func pidOf(global int64) int64  { return (global >> tidBits) & idMask }
func tidOf(global int64) int64  { return global & idMask }
func hostOf(global int64) int64 { return int64(uint64(global) >> hostBits) }

// kind is the container type of a node.
type kind uint8

const (
	kHost kind = iota
	kProcess
	kThread
	kDevice
	kContext
	kStream
	nKinds
)

var kindNames = [nKinds]string{"Host", "Process", "Thread", "Device", "Context", "Stream"}

// node is a container of the hierarchy, known by its ids in the database;
// it is named and numbered once the whole database is read.
type node struct {
	kind     kind
	parent   int32 // node index; -1 under the root
	id       int64 // the number the database gives it (pid, tid, device...)
	proc     int64 // contexts: the process (pid) that owns them
	children []int32
	lanes    int32 // 1 + the overlap lanes its states need
	cont     int32 // container of lane 0, set when created
}

// key identifies a node: its kind, its parent and its id (and for a
// context its process), so that two nodes are never merged by name.
type key struct {
	kind   kind
	parent int32
	id     int64
	proc   int64
}

// hierarchy holds the nodes and what names them.
type hierarchy struct {
	nodes []node
	byKey map[key]int32

	hostNames   map[int64]string // host key -> host name
	procNames   map[int64]string // global pid -> process name
	threadNames map[int64]string // global tid -> thread name
	nvtxNames   map[int64]string // global tid -> name given by nvtxNameOsThread
	deviceNames map[[2]int64]string
}

func newHierarchy() *hierarchy {
	return &hierarchy{byKey: map[key]int32{}, hostNames: map[int64]string{}, procNames: map[int64]string{},
		threadNames: map[int64]string{}, nvtxNames: map[int64]string{}, deviceNames: map[[2]int64]string{}}
}

func (h *hierarchy) get(k kind, parent int32, id, proc int64) int32 {
	kk := key{k, parent, id, proc}
	if n, ok := h.byKey[kk]; ok {
		return n
	}
	n := int32(len(h.nodes))
	h.nodes = append(h.nodes, node{kind: k, parent: parent, id: id, proc: proc, lanes: 1})
	h.byKey[kk] = n
	if parent >= 0 {
		h.nodes[parent].children = append(h.nodes[parent].children, n)
	}
	return n
}

func (h *hierarchy) host(hostKey int64) int32 { return h.get(kHost, -1, hostKey, 0) }

// thread returns the node of the thread with global id gtid, creating it
// and its process and host.
func (h *hierarchy) thread(gtid int64) int32 {
	p := h.get(kProcess, h.host(hostOf(gtid)), pidOf(gtid), 0)
	return h.get(kThread, p, tidOf(gtid), 0)
}

// stream returns the node of a GPU stream. Devices belong to the host of
// the process using them; contexts are told apart by process too, since
// context ids are only unique within a process.
func (h *hierarchy) stream(gpid, device, context, stream int64) int32 {
	hostNode := h.host(hostOf(gpid))
	d := h.get(kDevice, hostNode, device, 0)
	c := h.get(kContext, d, context, pidOf(gpid))
	return h.get(kStream, c, stream, 0)
}

// deviceOf returns the device of the context a process knows by id
// context, once a GPU operation has created it.
func (h *hierarchy) deviceOf(gpid, context int64) (int64, bool) {
	host, ok := h.byKey[key{kHost, -1, hostOf(gpid), 0}]
	if !ok {
		return 0, false
	}
	for _, d := range h.nodes[host].children {
		if h.nodes[d].kind != kDevice {
			continue
		}
		if _, ok := h.byKey[key{kContext, d, context, pidOf(gpid)}]; ok {
			return h.nodes[d].id, true
		}
	}
	return 0, false
}

// findStream returns the node of a GPU stream, or false when nothing
// created it.
func (h *hierarchy) findStream(gpid, device, context, stream int64) (int32, bool) {
	host, ok := h.byKey[key{kHost, -1, hostOf(gpid), 0}]
	if !ok {
		return 0, false
	}
	d, ok := h.byKey[key{kDevice, host, device, 0}]
	if !ok {
		return 0, false
	}
	c, ok := h.byKey[key{kContext, d, context, pidOf(gpid)}]
	if !ok {
		return 0, false
	}
	n, ok := h.byKey[key{kStream, c, stream, 0}]
	return n, ok
}

// order sorts every node's children: processes before devices, then by id.
func (h *hierarchy) order(list []int32) {
	slices.SortFunc(list, func(a, b int32) int {
		na, nb := &h.nodes[a], &h.nodes[b]
		if c := cmp.Compare(na.kind, nb.kind); c != 0 {
			return c
		}
		if c := cmp.Compare(na.id, nb.id); c != 0 {
			return c
		}
		return cmp.Compare(na.proc, nb.proc)
	})
}

// roots returns the host nodes in order.
func (h *hierarchy) roots() []int32 {
	var out []int32
	for i := range h.nodes {
		if h.nodes[i].parent < 0 {
			out = append(out, int32(i))
		}
	}
	h.order(out)
	return out
}

// name returns the name and alias of node n.
func (h *hierarchy) name(n int32) (string, string) {
	nd := &h.nodes[n]
	id := strconv.FormatInt(nd.id, 10)
	switch nd.kind {
	case kHost:
		if name, ok := h.hostNames[nd.id]; ok {
			return name, id
		}
		if len(h.hostNames) == 0 && h.countKind(kHost) == 1 {
			return "host", id
		}
		return "host " + id, id
	case kProcess:
		gpid := h.nodes[nd.parent].id<<hostBits | nd.id<<tidBits
		if name, ok := h.procNames[gpid]; ok && name != "" {
			return fmt.Sprintf("%s (%d)", name, nd.id), id
		}
		// Without PROCESSES (or its row), the main thread's name, which
		// Linux gives from the executable.
		if name, ok := h.threadNames[gpid|nd.id]; ok && name != "" {
			return fmt.Sprintf("%s (%d)", name, nd.id), id
		}
		return "Process " + id, id
	case kThread:
		p := &h.nodes[nd.parent]
		gtid := h.nodes[p.parent].id<<hostBits | p.id<<tidBits | nd.id
		if name, ok := h.nvtxNames[gtid]; ok && name != "" {
			return fmt.Sprintf("%s (%d)", name, nd.id), id
		}
		if name, ok := h.threadNames[gtid]; ok && name != "" {
			return fmt.Sprintf("%s (%d)", name, nd.id), id
		}
		return "Thread " + id, id
	case kDevice:
		hostKey := h.nodes[nd.parent].id
		if name, ok := h.deviceNames[[2]int64{hostKey, nd.id}]; ok && name != "" {
			return fmt.Sprintf("GPU %d (%s)", nd.id, name), id
		}
		return "GPU " + id, id
	case kContext:
		alias := fmt.Sprintf("%d:%s", nd.proc, id)
		if h.severalProcesses(nd.parent) {
			return fmt.Sprintf("Context %d (pid %d)", nd.id, nd.proc), alias
		}
		return "Context " + id, alias
	case kStream:
		if nd.id == noStream {
			return noStreamName, id
		}
		return "Stream " + id, id
	}
	return id, id
}

func (h *hierarchy) countKind(k kind) int {
	n := 0
	for i := range h.nodes {
		if h.nodes[i].kind == k {
			n++
		}
	}
	return n
}

// severalProcesses tells whether device d holds contexts of more than one
// process, whose ids may then collide.
func (h *hierarchy) severalProcesses(d int32) bool {
	ch := h.nodes[d].children
	for _, c := range ch[1:] {
		if h.nodes[c].proc != h.nodes[ch[0]].proc {
			return true
		}
	}
	return false
}
