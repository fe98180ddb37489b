package xplane

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/macroscope-hpc/macroscope/core/readers/pbwalk"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Field numbers of tsl/profiler/protobuf/xplane.proto.
const (
	spacePlanes    = 1 // XSpace.planes
	spaceErrors    = 2 // XSpace.errors
	spaceWarnings  = 3 // XSpace.warnings
	spaceHostnames = 4 // XSpace.hostnames

	planeID            = 1 // XPlane.id
	planeName          = 2 // XPlane.name
	planeLines         = 3 // XPlane.lines
	planeEventMetadata = 4 // XPlane.event_metadata (map<int64, XEventMetadata>)
	planeStatMetadata  = 5 // XPlane.stat_metadata (map<int64, XStatMetadata>)

	mapKey   = 1
	mapValue = 2

	lineID          = 1  // XLine.id
	lineName        = 2  // XLine.name
	lineTimestampNs = 3  // XLine.timestamp_ns
	lineEvents      = 4  // XLine.events
	lineDisplayID   = 10 // XLine.display_id
	lineDisplayName = 11 // XLine.display_name

	eventMetadataID    = 1 // XEvent.metadata_id
	eventOffsetPs      = 2 // XEvent.offset_ps (oneof data)
	eventDurationPs    = 3 // XEvent.duration_ps
	eventStats         = 4 // XEvent.stats
	eventNumOccurences = 5 // XEvent.num_occurrences (oneof data)

	emID          = 1 // XEventMetadata.id
	emName        = 2 // XEventMetadata.name
	emDisplayName = 4 // XEventMetadata.display_name
	emStats       = 5 // XEventMetadata.stats

	smName = 2 // XStatMetadata.name

	statMetadataID = 1 // XStat.metadata_id
	statUint       = 3 // XStat.uint64_value
	statInt        = 4 // XStat.int64_value
	statStr        = 5 // XStat.str_value
	statRef        = 7 // XStat.ref_value (an XStatMetadata's name)
)

// The planes xprof's trace viewer shows (xplane_to_trace_container.cc):
// the host's threads, the GPUs (else the TPUs), and custom devices. The
// other planes hold metadata (HLO protos, the task's environment) or
// what xprof derives its other tools from.
const (
	hostThreadsPlane = "/host:CPU"
	gpuPlanePrefix   = "/device:GPU:"
	tpuPlanePrefix   = "/device:TPU:"
	customPlane      = "/device:CUSTOM:"
)

// The lines xprof leaves out of the timeline: counters, drawn as
// counter tracks, not states.
const (
	counterLine       = "_counters_"
	counterLinePrefix = "counters_"
	// stepLine is the line of a TPU's steps, each event named by its
	// step number.
	stepLine = "Steps"
	// stepNameStat is the stat whose string value xprof shows as the
	// event's name.
	stepNameStat = "step_name"
	// stepNumStat and rootStat are the stats of a host's step annotation
	// (jax.profiler.StepTraceAnnotation, TensorFlow's
	// Trace("train", step_num=N, _r=1)): its number, and the mark of a
	// root event, which xprof's grouping (group_events.cc) makes a step,
	// numbered by its step_num.
	stepNumStat = "step_num"
	rootStat    = "_r"
)

// explicitStepMarker tells whether xprof takes an event of this name as
// a host step marker (IsExplicitHostStepMarker, xplane_to_step_events.cc)
// even without the root stat.
func explicitStepMarker(name string) bool {
	return (strings.HasPrefix(name, "train") || strings.HasPrefix(name, "test") ||
		strings.HasPrefix(name, "TraceContext")) && !strings.Contains(name, "/")
}

// internalEvents are the host events xprof's trace viewer hides
// (IsInternalEvent of xplane_schema.cc): bookkeeping of TensorFlow's
// allocator and tf.data's producers and consumers, not work.
var internalEvents = map[string]bool{
	"MemoryAllocation": true, "MemoryDeallocation": true,
	"PrefetchProduce": true, "PrefetchConsume": true,
	"ParallelInterleaveProduce": true, "ParallelInterleaveConsume": true, "ParallelInterleaveInitializeInput": true,
	"ParallelMapProduce": true, "ParallelMapConsume": true,
	"MapAndBatchProduce": true, "MapAndBatchConsume": true,
	"ParseExampleProduce": true, "ParseExampleConsume": true,
}

// planeRef is a plane of the space, not yet decoded.
type planeRef struct {
	name string
	b    []byte
	off  int64
}

// decodeSpace decodes the XSpace data (the whole file, decompressed) of
// file into m, under a host container. stem names the host when the
// space names none.
func (m *model) decodeSpace(data []byte, stem string) error {
	// The planes the trace viewer shows, kept until the space is read
	// (the hostnames come after them); the others only counted.
	var planes []planeRef
	nplanes := 0
	// The first hostname names the host; the others are only counted
	// (a list of them would be many times the size of a space of empty
	// hostnames).
	var hostname string
	hostnames := 0
	reported := 0
	err := pbwalk.Each(data, 0, func(f field) error {
		switch f.Num {
		case spacePlanes:
			if err := want(&f, "XSpace", "planes", protowire.BytesType); err != nil {
				return err
			}
			p := planeRef{b: f.B, off: f.Off}
			err := pbwalk.Each(f.B, f.Off, func(g field) error {
				switch g.Num {
				case planeName:
					if err := want(&g, "XPlane", "name", protowire.BytesType); err != nil {
						return err
					}
					p.name = string(g.B)
				}
				return nil
			})
			if err != nil {
				return err
			}
			nplanes++
			if shownPlane(p.name) {
				planes = append(planes, p)
			}
		case spaceErrors, spaceWarnings, spaceHostnames:
			if err := want(&f, "XSpace", "errors, warnings or hostnames", protowire.BytesType); err != nil {
				return err
			}
			switch {
			case f.Num == spaceHostnames:
				if hostnames == 0 {
					hostname = m.text.String(string(f.B))
				}
				hostnames++
			case reported < maxReported:
				what := "reports"
				if f.Num == spaceErrors {
					what = "reports an error"
				}
				m.opt.Warn("%s: the profiler %s: %s", m.file, what, clip(m.text.String(string(f.B))))
				reported++
			default:
				m.opt.Skip("more of the profiler's errors and warnings", 1)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	host := stem
	if hostname != "" {
		host = hostname
	}
	if nplanes == 0 && hostnames == 0 {
		// A profiler always writes a plane (of metadata at least).
		m.opt.Incomplete("%s holds no plane (%d bytes): the file is empty or cut", m.file, len(data))
	}
	if hostnames == 0 && nplanes > 0 {
		// The profilers (TensorFlow 2.4 and later, every jax) name the
		// host, in a field written after the planes: a space cut
		// between two planes reads well but for this. Not proof of a
		// cut (xprof's own TPU test spaces name no host): a warning.
		m.opt.Warn("%s names no host (XSpace.hostnames, which the profilers write after the planes): "+
			"if the file was cut after its last whole plane, the planes after the cut are missing", m.file)
	}
	h := m.container(-1, ctHost, stem, int64(len(m.conts)), m.text.String(host))
	for _, p := range shown(planes) {
		if err := m.decodePlane(h, p); err != nil {
			return err
		}
	}
	return nil
}

// maxReported bounds the profiler's errors and warnings (XSpace.errors,
// .warnings) a read passes on, each a note; the others are counted.
const maxReported = 10

// clip shortens a message of the profiler for a note.
func clip(s string) string {
	const most = 300
	if len(s) > most {
		return strings.ToValidUTF8(s[:most], "") + "..."
	}
	return s
}

// shownPlane tells whether the trace viewer may show the plane named
// name (shown chooses among them).
func shownPlane(name string) bool {
	for _, p := range []string{hostThreadsPlane, gpuPlanePrefix, tpuPlanePrefix, customPlane} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// shown returns the planes the trace viewer shows, in its order: the
// host's threads (by name), the GPUs, or the TPUs when there is no GPU,
// then the custom devices, each in file order.
func shown(planes []planeRef) []planeRef {
	var host, gpu, tpu, custom []planeRef
	for _, p := range planes {
		switch {
		case strings.HasPrefix(p.name, hostThreadsPlane):
			host = append(host, p)
		case strings.HasPrefix(p.name, gpuPlanePrefix):
			gpu = append(gpu, p)
		case strings.HasPrefix(p.name, tpuPlanePrefix):
			tpu = append(tpu, p)
		case strings.HasPrefix(p.name, customPlane):
			custom = append(custom, p)
		}
	}
	slices.SortStableFunc(host, func(a, b planeRef) int { return strings.Compare(a.name, b.name) })
	out := host
	if len(gpu) > 0 {
		out = append(out, gpu...)
	} else {
		out = append(out, tpu...)
	}
	return append(out, custom...)
}

// eventMeta is what the reader takes of an XEventMetadata.
type eventMeta struct {
	name     string // the name to show: display_name, else name
	internal bool   // an event xprof hides
	stepName string // its step_name stat, if any
	root     bool   // it has the root stat (_r), set on the metadata
}

// lineRef is a message of a plane (a line, an event), not yet decoded.
type lineRef struct {
	b   []byte
	off int64
}

// metaWeight is what an entry of a plane's metadata maps weighs, beside
// its name: the map's entry and the eventMeta.
const metaWeight = 96

// decodePlane decodes plane p into containers under host h: the plane,
// and a container per line (lines of one display id share one, as the
// trace viewer draws them in one row). It walks the plane's fields three
// times, keeping no list of them (a plane of empty fields would make
// such a list tens of times the file's size): the stats' names, which
// the event metadata's step_name needs; the event metadata, which the
// lines need; the lines. The metadata maps count against the budget.
func (m *model) decodePlane(h int32, p planeRef) error {
	defer func() { m.aside = 0 }()
	statNames := map[int64]string{}
	metas := map[int64]*eventMeta{}
	weighMaps := func() error {
		if n := len(statNames) + len(metas); n%weighEvery == weighEvery-1 {
			m.aside = int64(n) * metaWeight
			m.weigh()
		}
		return m.err
	}
	err := pbwalk.Each(p.b, p.off, func(f field) error {
		if f.Num != planeStatMetadata {
			return nil
		}
		if err := want(&f, "XPlane", "stat_metadata", protowire.BytesType); err != nil {
			return err
		}
		key, value, err := mapEntry(&f, "stat_metadata")
		if err != nil || value == nil {
			return err
		}
		err = pbwalk.Each(value.B, value.Off, func(g field) error {
			if g.Num == smName {
				if err := want(&g, "XStatMetadata", "name", protowire.BytesType); err != nil {
					return err
				}
				statNames[key] = string(g.B)
			}
			return nil
		})
		if err != nil {
			return err
		}
		return weighMaps()
	})
	if err != nil {
		return err
	}
	st := stepStats{names: statNames, host: strings.HasPrefix(p.name, hostThreadsPlane)}
	st.id, st.has = statID(statNames, stepNameStat)
	if st.host {
		st.numID, st.hasNum = statID(statNames, stepNumStat)
		st.rootID, st.hasRoot = statID(statNames, rootStat)
	}
	err = pbwalk.Each(p.b, p.off, func(f field) error {
		if f.Num != planeEventMetadata {
			return nil
		}
		if err := want(&f, "XPlane", "event_metadata", protowire.BytesType); err != nil {
			return err
		}
		key, value, err := mapEntry(&f, "event_metadata")
		if err != nil {
			return err
		}
		em, err := m.eventMetadata(value, st)
		if err != nil {
			return err
		}
		metas[key] = em
		return weighMaps()
	})
	if err != nil {
		return err
	}
	pc := m.container(h, ctPlane, strconv.FormatInt(int64(len(m.conts)), 10), int64(len(m.conts)), m.text.String(p.name))
	return pbwalk.Each(p.b, p.off, func(f field) error {
		if f.Num != planeLines {
			return nil
		}
		if err := want(&f, "XPlane", "lines", protowire.BytesType); err != nil {
			return err
		}
		if err := m.decodeLine(pc, lineRef{b: f.B, off: f.Off}, metas, st); err != nil {
			return err
		}
		return m.opt.Canceled()
	})
}

// mapEntry decodes a map entry's key and value (nil when absent).
func mapEntry(f *field, what string) (int64, *field, error) {
	var key int64
	var value *field
	err := pbwalk.Each(f.B, f.Off, func(g field) error {
		switch g.Num {
		case mapKey:
			if err := want(&g, "XPlane."+what, "key", protowire.VarintType); err != nil {
				return err
			}
			key = g.Int64()
		case mapValue:
			if err := want(&g, "XPlane."+what, "value", protowire.BytesType); err != nil {
				return err
			}
			v := g
			value = &v
		}
		return nil
	})
	return key, value, err
}

// statID returns the metadata id of the stat named name (the least if
// several are), false if the plane has none.
func statID(names map[int64]string, name string) (id int64, ok bool) {
	for k, n := range names {
		if n == name && (!ok || k < id) {
			id, ok = k, true
		}
	}
	return id, ok
}

// stepStats finds the stats that name or number a step: the metadata
// ids of step_name and, on the host's plane, of step_num and _r, and the
// names of the stat metadata (a ref_value names one).
type stepStats struct {
	id     int64
	has    bool
	names  map[int64]string
	host   bool // the plane of the host's threads
	numID  int64
	hasNum bool
	rootID int64
	// hasRoot: the plane has a root stat
	hasRoot bool
}

// wanted tells whether the stats of an event are worth decoding.
func (s stepStats) wanted() bool { return s.has || s.hasNum || s.hasRoot }

// stat is what the reader takes of an XStat.
type stat struct {
	id    int64
	str   string // str_value, or the name ref_value refers to
	num   int64  // int64_value or uint64_value
	isNum bool
}

// stat decodes the XStat field f.
func (s stepStats) stat(f *field) (stat, error) {
	var id int64
	var value string
	var isRef bool
	var ref int64
	var num int64
	var isNum bool
	err := pbwalk.Each(f.B, f.Off, func(g field) error {
		switch g.Num {
		case statMetadataID:
			if err := want(&g, "XStat", "metadata_id", protowire.VarintType); err != nil {
				return err
			}
			id = g.Int64()
		case statStr:
			if err := want(&g, "XStat", "str_value", protowire.BytesType); err != nil {
				return err
			}
			value, isRef = string(g.B), false
		case statRef:
			if err := want(&g, "XStat", "ref_value", protowire.VarintType); err != nil {
				return err
			}
			ref, isRef = g.Int64(), true
		case statInt, statUint:
			if err := want(&g, "XStat", "int64_value or uint64_value", protowire.VarintType); err != nil {
				return err
			}
			num, isNum = g.Int64(), g.Num == statInt || g.U <= math.MaxInt64
		}
		return nil
	})
	if isRef {
		value = s.names[ref]
	}
	return stat{id: id, str: value, num: num, isNum: isNum}, err
}

// eventMetadata decodes an XEventMetadata (nil: an empty one).
func (m *model) eventMetadata(f *field, st stepStats) (*eventMeta, error) {
	em := &eventMeta{}
	if f == nil {
		return em, nil
	}
	var name, display string
	err := pbwalk.Each(f.B, f.Off, func(g field) error {
		switch g.Num {
		case emName, emDisplayName:
			if err := want(&g, "XEventMetadata", "name", protowire.BytesType); err != nil {
				return err
			}
			if g.Num == emName {
				name = string(g.B)
			} else {
				display = string(g.B)
			}
		case emStats:
			if err := want(&g, "XEventMetadata", "stats", protowire.BytesType); err != nil {
				return err
			}
			if st.wanted() {
				x, err := st.stat(&g)
				if err != nil {
					return err
				}
				switch {
				case st.has && x.id == st.id && x.str != "":
					em.stepName = x.str
				case st.hasRoot && x.id == st.rootID:
					em.root = !x.isNum || x.num != 0
				}
			}
		}
		return nil
	})
	em.internal = internalEvents[name]
	em.name = name
	if display != "" {
		em.name = display
	}
	return em, err
}

// decodeLine decodes the events of line l of plane container pc. It
// walks the line's fields twice, keeping no list of its events: its
// name, display name and timestamp, which the protobuf serializers write
// on either side of the events, then the events.
func (m *model) decodeLine(pc int32, l lineRef, metas map[int64]*eventMeta, st stepStats) error {
	var id, displayID, ts, events int64
	var name, display string
	err := pbwalk.Each(l.b, l.off, func(f field) error {
		switch f.Num {
		case lineID, lineDisplayID, lineTimestampNs:
			if err := want(&f, "XLine", "id, display_id or timestamp_ns", protowire.VarintType); err != nil {
				return err
			}
			switch f.Num {
			case lineID:
				id = f.Int64()
			case lineDisplayID:
				displayID = f.Int64()
			default:
				ts = f.Int64()
			}
		case lineName, lineDisplayName:
			if err := want(&f, "XLine", "name or display_name", protowire.BytesType); err != nil {
				return err
			}
			if f.Num == lineName {
				name = string(f.B)
			} else {
				display = string(f.B)
			}
		case lineEvents:
			if err := want(&f, "XLine", "events", protowire.BytesType); err != nil {
				return err
			}
			events++
		}
		return nil
	})
	if err != nil || events == 0 {
		return err
	}
	if name == counterLine || strings.HasPrefix(name, counterLinePrefix) {
		m.opt.Skip("counter events (xprof's counter lines, "+counterLine+")", events)
		return nil
	}
	if displayID == 0 {
		displayID = id
	}
	if display == "" {
		display = name
	}
	lc := m.container(pc, ctLine, strconv.FormatInt(displayID, 10), int64(len(m.conts)), m.text.String(display))
	steps := name == stepLine
	k := 0
	return pbwalk.Each(l.b, l.off, func(f field) error {
		if f.Num != lineEvents {
			return nil
		}
		if k++; k%4096 == 0 {
			if err := m.opt.Canceled(); err != nil {
				return err
			}
		}
		if err := m.decodeEvent(lc, ts, lineRef{b: f.B, off: f.Off}, metas, st, steps); err != nil {
			return err
		}
		return m.err
	})
}

// decodeEvent decodes event e of line container lc, whose line starts
// at ts (ns).
func (m *model) decodeEvent(lc int32, ts int64, e lineRef, metas map[int64]*eventMeta, st stepStats, steps bool) error {
	var metaID, offset, dur int64
	aggregated := false
	stepName := ""
	stepNum, hasNum := int64(0), false
	root := false
	// A loop rather than pbwalk.Each: this runs once an event, and the
	// callback would cost a call and its captures a field.
	it := pbwalk.NewIter(e.b, e.off)
	var f field
	for {
		if ok, err := it.Next(&f); !ok {
			if err != nil {
				return err
			}
			break
		}
		switch f.Num {
		case eventMetadataID, eventOffsetPs, eventDurationPs, eventNumOccurences:
			if err := want(&f, "XEvent", "metadata_id, offset_ps, duration_ps or num_occurrences", protowire.VarintType); err != nil {
				return err
			}
			switch f.Num {
			case eventMetadataID:
				metaID = f.Int64()
			case eventOffsetPs:
				offset, aggregated = f.Int64(), false
			case eventDurationPs:
				dur = f.Int64()
			default:
				aggregated = true // the oneof's last field wins
			}
		case eventStats:
			if err := want(&f, "XEvent", "stats", protowire.BytesType); err != nil {
				return err
			}
			if st.wanted() {
				x, err := st.stat(&f)
				if err != nil {
					return err
				}
				switch {
				case st.has && x.id == st.id:
					if x.str != "" {
						stepName = x.str
					}
				case st.hasNum && x.id == st.numID:
					stepNum, hasNum = x.num, x.isNum
				case st.hasRoot && x.id == st.rootID:
					root = !x.isNum || x.num != 0
				}
			}
		}
	}
	if aggregated {
		m.opt.Skip("aggregated events (num_occurrences, no time)", 1)
		return nil
	}
	em := metas[metaID]
	if em == nil {
		// Not kept in metas: a hostile line of events each naming
		// another id would grow it unweighed; the names are interned.
		em = &eventMeta{name: "event metadata " + strconv.FormatInt(metaID, 10)}
		m.opt.Skip("events whose metadata the plane lacks (named by their metadata id)", 1)
	}
	if em.internal {
		m.opt.Skip("events the trace viewer hides (TensorFlow's memory allocations, tf.data producers and consumers)", 1)
		return nil
	}
	if dur < 0 {
		return pbwalk.Corruptf(e.off, "event of negative duration (%d ps)", dur)
	}
	start, ok1 := psToNs(ts, offset)
	end, ok2 := psToNs(ts, offset)
	if ok2 && dur > 0 {
		// The end from the exact picoseconds, so that events nested in
		// picoseconds stay nested in nanoseconds.
		if offset > math.MaxInt64-dur {
			ok2 = false
		} else {
			end, ok2 = psToNs(ts, offset+dur)
		}
	}
	if !ok1 || !ok2 || trace.Time(end) == trace.Unset {
		return pbwalk.Corruptf(e.off, "event time out of range (line at %d ns, offset %d ps, duration %d ps)", ts, offset, dur)
	}
	name := em.name
	if stepName != "" {
		name = stepName
	} else if em.stepName != "" {
		name = em.stepName
	}
	kind, num := stepNone, int32(0)
	switch {
	case steps:
		kind = stepDevice
	case hasNum && stepNum >= 0 && stepNum <= math.MaxInt32 && (root || em.root || explicitStepMarker(name)):
		// A host's step annotation: xprof's grouping makes a root event
		// (or one its step events name explicitly) a step, numbered by
		// its step_num.
		kind, num = stepHost, int32(stepNum)
	}
	m.add(lc, m.text.String(name), trace.Time(start), trace.Time(end), kind, num)
	return nil
}
