package otf2

import (
	"errors"
	"io/fs"
	"unicode/utf8"
	"unsafe"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
)

// Global definition record types (OTF2 3.0). Records of other types are
// skipped by their length; the format guarantees that this is safe.
const (
	defClockProperties = 5
	defString          = 10
	defSystemTreeNode  = 12
	defLocationGroup   = 13
	defLocation        = 14
	defRegion          = 15
	defGroup           = 18
	defMetricMember    = 19
	defMetricClass     = 20
	defMetricInstance  = 21
	defComm            = 22
	defParameter       = 23
	defInterComm       = 43
)

// undefined32 is OTF2's "no reference" value of 32-bit IDs.
const undefined32 = 1<<32 - 1

// Location group and location types.
const (
	groupProcess     = 1
	groupAccelerator = 2

	locationCPUThread = 1
	locationStream    = 2
	locationMetric    = 3
)

// Group types (since OTF2 1.2) and the flag that makes COMM_GROUP members
// direct indexes into the COMM_LOCATIONS group.
const (
	groupTypeCommLocations = 4
	groupTypeCommGroup     = 5
	groupTypeCommSelf      = 6
	groupFlagGlobalMembers = 1
)

// Metric scopes of a metric instance.
const (
	scopeLocation       = 0
	scopeLocationGroup  = 1
	scopeSystemTreeNode = 2
	scopeGroup          = 3
)

// OTF2 value types, as used by metric values.
const (
	typeUint64 = 4
	typeInt64  = 8
	typeDouble = 10
)

type clockProperties struct {
	resolution, offset, length uint64
}

// The definitions below keep at, the offset of their record in the
// definitions file, to locate the problems found when they are used.

type systemTreeNode struct {
	id, name, class, parent uint32
	at                      int64
}

type locationGroup struct {
	id, name, parent uint32 // parent: a system tree node
	kind             uint8
	at               int64
}

type location struct {
	id     uint64
	name   uint32
	kind   uint8
	events uint64 // number of events the writer recorded
	group  uint32
	at     int64
}

type region struct {
	name uint32
	at   int64
	// paradigm is the OTF2 paradigm of the region (OTF2 1.1 and later),
	// paradigmUnknown when the archive does not say.
	paradigm uint8
}

// paradigmUnknown is OTF2_PARADIGM_UNKNOWN.
const paradigmUnknown = 0

// paradigmNames names OTF2's paradigms (OTF2_Paradigm), as the OTF2
// library spells them; a region's state value has its paradigm as
// category. Unknown and none have no name.
var paradigmNames = [...]string{"", "USER", "COMPILER", "OPENMP", "MPI", "CUDA", "MEASUREMENT_SYSTEM", "PTHREAD",
	"HMPP", "OMPSS", "HARDWARE", "GASPI", "UPC", "SHMEM", "WINTHREAD", "QTTHREAD", "ACETHREAD", "TBBTHREAD",
	"OPENACC", "OPENCL", "MTAPI", "SAMPLING", "", "HIP", "KOKKOS"}

// paradigmName returns the name of paradigm p, "" when unknown.
func paradigmName(p uint8) string {
	if int(p) < len(paradigmNames) {
		return paradigmNames[p]
	}
	return ""
}

type group struct {
	kind     uint8
	paradigm uint8
	flags    uint32
	members  []uint64
}

type comm struct {
	name, group uint32
	at          int64
}

type metricMember struct {
	name uint32
	at   int64
}

// metric is a metric class (a list of members, recorded by the location
// that writes the samples) or a metric instance (a class measured by a
// recorder location on behalf of a scope). Both share one ID space.
type metric struct {
	instance  bool
	members   []uint32 // classes only
	class     uint32   // instances only
	scopeKind uint8    // instances only
	scope     uint64   // instances only
	recorder  uint64   // instances only: a location ID
}

type parameter struct {
	name uint32
	at   int64
}

// definitions are the global definitions of an archive.
type definitions struct {
	clock      clockProperties
	haveClock  bool
	strings    map[uint32]string
	badStrings map[uint32]int64 // strings that are not valid UTF-8, by offset
	nodes      []systemTreeNode // in definition order
	lgroups    []locationGroup
	locations  []location
	regions    map[uint32]region
	groups     map[uint32]group
	comms      map[uint32]comm
	interComms map[uint32]int64
	members    map[uint32]metricMember
	metrics    map[uint32]metric
	parameters map[uint32]parameter
	// counts holds the number of records of each type, total their sum.
	counts map[uint8]int
	total  int
	// redefined counts the Group and Comm definitions that give an ID
	// again (see decodeDefinitions), first the offset of the first one.
	redefined map[string]int
	first     int64
}

// readDefinitions reads the archive's global definitions file, weighing
// the file while it is decoded, then the definitions, with hold (nil:
// none).
func readDefinitions(a *anchor, hold func(int64) error) (*definitions, error) {
	path := a.globalDefsPath()
	data, err := ingest.ReadFileHeld(a.dir, path, 0, hold)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err != nil { // a directory in its place, unreadable...
		return nil, &errs.FormatError{File: path, Err: err}
	}
	if len(data) == 0 {
		return nil, &errs.FormatError{File: path, Err: errorString("the global definition file is empty: the archive defines nothing (was it cut, or its writer killed?)")}
	}
	d, derr := decodeDefinitions(data, a.chunkDefs)
	if hold != nil {
		hold(-int64(len(data)))
	}
	if derr != nil {
		return nil, &errs.FormatError{File: path, AtOffset: true, Offset: derr.offset, Err: errorString(derr.msg)}
	}
	if hold != nil {
		if err := hold(d.weight()); err != nil {
			return nil, &errs.FormatError{File: path, Err: err}
		}
	}
	if !d.haveClock {
		return nil, &errs.FormatError{File: path, Err: errorString("no ClockProperties definition: timestamps cannot be converted")}
	}
	if d.clock.resolution == 0 {
		return nil, &errs.FormatError{File: path, Err: errorString("ClockProperties gives a timer resolution of 0 ticks per second")}
	}
	return d, nil
}

func decodeDefinitions(data []byte, chunkSize uint64) (*definitions, *decodeError) {
	d := &definitions{
		strings:    map[uint32]string{},
		badStrings: map[uint32]int64{},
		regions:    map[uint32]region{},
		groups:     map[uint32]group{},
		comms:      map[uint32]comm{},
		interComms: map[uint32]int64{},
		members:    map[uint32]metricMember{},
		metrics:    map[uint32]metric{},
		parameters: map[uint32]parameter{},
		counts:     map[uint8]int{},
	}
	seen := map[idKey]bool{}
	err := forEachDefRecord(data, chunkSize, func(kind uint8, r *cursor, at int64) *decodeError {
		d.counts[kind]++
		d.total++
		id, name, ok := d.decode(kind, r, at)
		if !ok {
			return nil // not a definition this reader uses
		}
		if r.err != nil {
			return r.recordErr(name)
		}
		k := idKey{kind, id}
		if kind == defMetricInstance { // classes and instances share their IDs
			k.kind = defMetricClass
		}
		if seen[k] && (kind == defGroup || kind == defComm) {
			// EZTrace 2.0 gives Group 0 to MPI_COMM_WORLD's COMM_LOCATIONS,
			// its COMM_GROUP and MPI_COMM_SELF's group, and Comm 0 to both
			// communicators. OTF2's reader passes such definitions on and
			// otf2-print warns; the first is kept (the world's locations, the
			// world), which later references to the ID meant too.
			if len(d.redefined) == 0 {
				d.redefined, d.first = map[string]int{}, at
			}
			d.redefined[name]++
			return nil
		}
		if seen[k] {
			return &decodeError{offset: at, msg: name + " " + itoa(id) + " is defined twice"}
		}
		seen[k] = true
		return nil
	})
	return d, err
}

// idKey identifies a definition for the duplicate check.
type idKey struct {
	kind uint8
	id   uint64
}

// decode reads one definition record of the given kind. It returns the
// definition's ID and record name, and false for records it skips.
func (d *definitions) decode(kind uint8, r *cursor, at int64) (uint64, string, bool) {
	switch kind {
	case defClockProperties:
		d.clock = clockProperties{resolution: r.u64(), offset: r.u64(), length: r.u64()}
		d.haveClock = true
		return 0, "ClockProperties", true
	case defString:
		id, s := r.u32(), r.str()
		if r.err == nil {
			d.strings[id] = s
			if !utf8.ValidString(s) {
				d.badStrings[id] = at
			}
		}
		return uint64(id), "String", true
	case defSystemTreeNode:
		n := systemTreeNode{id: r.u32(), name: r.u32(), class: r.u32(), parent: r.u32(), at: at}
		if r.err == nil {
			d.nodes = append(d.nodes, n)
		}
		return uint64(n.id), "SystemTreeNode", true
	case defLocationGroup:
		g := locationGroup{id: r.u32(), name: r.u32(), kind: r.u8(), parent: r.u32(), at: at}
		if r.err == nil {
			d.lgroups = append(d.lgroups, g)
		}
		return uint64(g.id), "LocationGroup", true
	case defLocation:
		l := location{id: r.u64(), name: r.u32(), kind: r.u8(), events: r.u64(), group: r.u32(), at: at}
		if r.err == nil {
			d.locations = append(d.locations, l)
		}
		return l.id, "Location", true
	case defRegion:
		id, name := r.u32(), r.u32()
		if r.err == nil {
			d.regions[id] = region{name: name, at: at, paradigm: regionParadigm(*r)}
		}
		return uint64(id), "Region", true
	case defGroup:
		return uint64(d.decodeGroup(r)), "Group", true
	case defMetricMember:
		// The description, type, mode, value type, base, exponent and unit
		// that follow are not needed: values are kept as recorded.
		id, name := r.u32(), r.u32()
		if r.err == nil {
			d.members[id] = metricMember{name: name, at: at}
		}
		return uint64(id), "MetricMember", true
	case defMetricClass:
		id, n := r.u32(), int(r.u8())
		m := metric{members: make([]uint32, 0, n)}
		for range n {
			m.members = append(m.members, r.u32())
		}
		if r.err == nil {
			d.metrics[id] = m
		}
		return uint64(id), "MetricClass", true
	case defMetricInstance:
		id := r.u32()
		m := metric{instance: true, class: r.u32()}
		m.recorder = r.u64() // the location whose event file holds the samples
		m.scopeKind, m.scope = r.u8(), r.u64()
		if r.err == nil {
			d.metrics[id] = m
		}
		return uint64(id), "MetricInstance", true
	case defComm:
		id := r.u32()
		c := comm{name: r.u32(), group: r.u32(), at: at}
		if _, again := d.comms[id]; r.err == nil && !again { // the first is kept
			d.comms[id] = c
		}
		return uint64(id), "Comm", true
	case defInterComm:
		id := r.u32()
		if r.err == nil {
			d.interComms[id] = at
		}
		return uint64(id), "InterComm", true
	case defParameter:
		id, name := r.u32(), r.u32()
		if r.err == nil {
			d.parameters[id] = parameter{name: name, at: at}
		}
		return uint64(id), "Parameter", true
	}
	return 0, "", false
}

// Group types before OTF2 1.2, converted to the current ones.
var groupTypesPre12 = [...]uint8{0, 1, 2, 3, groupTypeCommGroup, groupTypeCommSelf, groupTypeCommLocations}

// Paradigm of the MPI groups written before OTF2 1.2.
const paradigmMPI = 4

func (d *definitions) decodeGroup(r *cursor) uint32 {
	id := r.u32()
	r.u32() // name
	old := r.u8()
	n := r.u32()
	// Each member takes at least one byte: refuse counts the record cannot
	// hold before allocating.
	if r.err == nil && uint64(n) > uint64(len(r.buf)-r.pos) {
		r.fail(false, "Group %d claims %d members in a record of %d bytes", id, n, len(r.buf))
	}
	var g group
	if r.err == nil {
		g.members = make([]uint64, n)
		for i := range g.members {
			g.members[i] = r.u64()
		}
	}
	if r.more() {
		g.kind, g.paradigm, g.flags = r.u8(), r.u8(), r.u32()
	} else if int(old) < len(groupTypesPre12) {
		g.kind = groupTypesPre12[old]
		if old >= 4 {
			g.paradigm = paradigmMPI
		}
	}
	if _, again := d.groups[id]; r.err == nil && !again { // the first is kept
		d.groups[id] = g
	}
	return id
}

// str returns the string with the given ID. Strings that are undefined or
// not valid UTF-8 are reported against the definition that used them (at)
// or the string's own definition.
func (d *definitions) str(id uint32, what string, at int64) (string, *decodeError) {
	if off, bad := d.badStrings[id]; bad {
		return "", &decodeError{offset: off, msg: "String " + itoa(uint64(id)) + ", the " + what + ", is not valid UTF-8"}
	}
	s, ok := d.strings[id]
	if !ok {
		return "", &decodeError{offset: at, msg: "the " + what + " refers to String " + itoa(uint64(id)) + ", which is not defined"}
	}
	return s, nil
}

// regionParadigm reads the paradigm of a Region definition from the rest
// of its record (r is past the name): description, region type, source
// file, begin and end lines (OTF2 1.0), then canonical name, role and
// paradigm (added in 1.1). The other attributes are not needed; a record
// too short for the paradigm has none, and is not an error.
func regionParadigm(r cursor) uint8 {
	r.u32() // description
	r.u8()  // region type (1.0)
	r.u32() // source file
	r.u32() // begin line
	r.u32() // end line
	if !r.more() {
		return paradigmUnknown
	}
	r.u32() // canonical name
	r.u8()  // role
	p := r.u8()
	if r.err != nil {
		return paradigmUnknown
	}
	return p
}

// weight estimates the bytes the definitions take in memory: a map entry
// or slice element per record (a group member is 8 bytes where its record
// may spend 1), for the budget (see readDefinitions).
func (d *definitions) weight() int64 {
	const entry = 64 // a map entry of a small struct, with the map's overhead
	n := int64(len(d.strings)+len(d.badStrings)+len(d.regions)+len(d.comms)+len(d.interComms)+
		len(d.members)+len(d.parameters)+len(d.groups)+len(d.metrics)) * entry
	n += int64(len(d.nodes))*int64(unsafe.Sizeof(systemTreeNode{})) +
		int64(len(d.lgroups))*int64(unsafe.Sizeof(locationGroup{})) +
		int64(len(d.locations))*int64(unsafe.Sizeof(location{}))
	for _, s := range d.strings {
		n += int64(len(s))
	}
	for _, g := range d.groups {
		n += 8 * int64(len(g.members))
	}
	for _, m := range d.metrics {
		n += 4 * int64(len(m.members))
	}
	return n
}
