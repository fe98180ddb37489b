package perfetto

import (
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Android's async atrace slices span threads: "S|<tgid>|<name>|<cookie>"
// begins one (ActivityManager's "launching: <package>"), "F|<tgid>|<name>|
// <cookie>" ends it, from any thread of the process; Android 13's
// "G|<tgid>|<track>|<name>|<cookie>" and "H|<tgid>|<track>|<cookie>" do
// the same on a track named apart from the slice, and "N|<tgid>|<track>|
// <name>" is an instant on such a track. As in the trace
// processor, a slice is keyed by its process, name (or track) and cookie:
// a begin of a key already open is ignored and counted, an end of a key
// not open is counted. The slices of one process and name are placed as
// the trace processor places them, each on the first of the group's
// tracks with no slice open: containers "<name>", then "<name> (overlap
// lane k)", of type "Track" under the process, the slices states "Atrace
// slice" of depth 0.

// atraceGroupKey identifies a group of async atrace slices: its process
// and its name (or track).
type atraceGroupKey struct {
	tgid  int32
	name  string
	frame bool // frame timeline slices (frametimeline.go), states "Frame"
}

// atraceGroup is the tracks of a group and which cookie is open on which.
type atraceGroup struct {
	lanes []*stack
	open  map[int64]int // cookie -> lane
}

// asyncPrint parses the text of an async atrace event (S, F, G or H) or
// of an instant on a named track (N) after its phase; false if it is not
// one.
func asyncPrint(phase, rest string) (e atraceEvent, ok bool) {
	tgidText, rest, _ := strings.Cut(rest, "|")
	tgid, err := strconv.ParseUint(tgidText, 10, 32)
	if err != nil {
		return e, false
	}
	if phase == "N" { // <track>|<name>: an instant on the track, no cookie
		track, name, found := strings.Cut(rest, "|")
		if !found || track == "" || name == "" {
			return e, false
		}
		return atraceEvent{tgid: int32(tgid), phase: 'N', name: track, slice: name}, true
	}
	i := strings.LastIndexByte(rest, '|')
	if i < 0 {
		return e, false
	}
	cookie, err := strconv.ParseInt(rest[i+1:], 10, 64)
	if err != nil {
		return e, false
	}
	e = atraceEvent{tgid: int32(tgid), value: cookie, name: rest[:i]}
	switch phase {
	case "S", "F":
		e.phase = phase[0]
	case "G": // <track>|<name>: the group is the track, the slice named apart
		track, name, found := strings.Cut(e.name, "|")
		if !found {
			return e, false
		}
		e.phase, e.name, e.slice = 'S', track, name
	case "H": // <track>|<cookie>, or <track>|<name>|<cookie>
		e.phase = 'F'
		e.name, _, _ = strings.Cut(e.name, "|")
	default:
		return e, false
	}
	return e, e.name != ""
}

// atraceAsync applies an async begin (S) or end (F), in time order.
func (d *decoder) atraceAsync(e *atraceEvent) {
	k := atraceGroupKey{tgid: e.tgid, name: e.name, frame: e.frame}
	g := d.atraceGroups[k]
	if g == nil {
		g = &atraceGroup{open: map[int64]int{}}
		d.atraceGroups[k] = g
	}
	lane, isOpen := g.open[e.value]
	if e.phase == 'F' {
		if !isOpen {
			d.skip("atrace async slice ends (F, H) with no open slice of their name and cookie", 1)
			return
		}
		g.lanes[lane].pop(d, e.at)
		delete(g.open, e.value)
		return
	}
	if isOpen {
		d.skip("atrace async slice begins (S, G) of a slice already open (same name and cookie: ignored, as the trace processor ignores them)", 1)
		return
	}
	lane = g.freeLane(d, k)
	st := g.lanes[lane]
	name := e.name
	if e.slice != "" {
		name = e.slice
	}
	st.push(slice{start: e.at, end: open, value: d.m.value(st.typ, name), order: st.order})
	st.order++
	g.open[e.value] = lane
}

// atraceTrackInstant applies an instant on a named track (N): an event
// "Instant" on the group's first track, as the trace processor puts it on
// the process's track of that name.
func (d *decoder) atraceTrackInstant(e *atraceEvent) {
	k := atraceGroupKey{tgid: e.tgid, name: e.name}
	g := d.atraceGroups[k]
	if g == nil {
		g = &atraceGroup{open: map[int64]int{}}
		d.atraceGroups[k] = g
	}
	if len(g.lanes) == 0 {
		g.freeLane(d, k)
	}
	cont := g.lanes[0].cont
	typ := d.m.typ(trace.KindEvent, "Instant", d.m.contType[cont])
	d.m.sink.Event(trace.Event{Container: cont, Type: typ, Value: d.m.value(typ, e.slice), Time: e.at})
}

// freeLane returns the first track of the group with no slice open,
// creating one when all are busy.
func (g *atraceGroup) freeLane(d *decoder, k atraceGroupKey) int {
	for i, st := range g.lanes {
		if len(st.open) == 0 {
			return i
		}
	}
	parent := int32(0)
	if k.tgid != 0 {
		parent = d.conts.process(k.tgid)
	}
	cont := d.m.container("Track", d.m.laneName(parent, k.name, len(g.lanes)), "", parent)
	if k.frame {
		g.lanes = append(g.lanes, d.stackOf(cont, "Frame"))
	} else {
		g.lanes = append(g.lanes, d.atraceStack(cont))
	}
	return len(g.lanes) - 1
}
