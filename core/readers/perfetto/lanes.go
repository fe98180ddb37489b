package perfetto

import "github.com/macroscope-hpc/macroscope/core/trace"

// Tracks that share a name under one parent (Chromium's many
// "PipelineReporter" tracks under the browser, "Graphics.Pipeline" under
// the GPU process) would be containers of one path, which the tables and
// the analyses could not tell apart. They are packed into overlap lanes,
// as the chrome reader packs the async tracks of one name (so that a
// Chromium trace read as JSON and as proto gives the same containers
// where both carry the same events): containers "<name>", then "<name>
// (overlap lane k)", of type "Track" under the tracks' parent. A track's
// operation (a top-level slice with the slices nested in it, or an instant
// outside any slice, an operation of no duration) goes to the lowest lane
// whose last operation has ended by the time it begins, and keeps that
// lane until it ends: a group has as many lanes as it has operations open
// at once, not one per track. Operations are placed in the order their
// events come, which is the order of their starts when a group's events
// are in time order (a sequence writes them so).

// laneGroupKey identifies tracks that would share a path: their parent
// track (none: the root) and their name.
type laneGroupKey struct {
	parent    uint64
	hasParent bool
	name      string
}

// laneGroup is the lanes of a group of tracks.
type laneGroup struct {
	key   laneGroupKey
	uuid  uint64 // a member, whose parent the lanes take
	lanes []lane
}

// lane is a container of a group, and the track whose operation it holds.
type lane struct {
	cont    int32
	held    bool
	holder  uint64
	lastEnd trace.Time // the end of its last operation
}

// findLaneGroups gives every custom track that shares its name and parent
// with another its group; the others keep a container of their own.
func (c *containers) findLaneGroups() {
	members := map[laneGroupKey][]uint64{}
	c.m.tracks = map[string]bool{}
	for uuid, t := range c.cat.tracks {
		if t.kind != trackCustom || t.name == "" {
			continue
		}
		// A track named as a lane is ("X (overlap lane 1)", of a trace
		// converted before) may be created after the lane: lanes keep off
		// the names of all custom tracks.
		c.m.tracks[t.name] = true
		k := laneGroupKey{name: t.name}
		if t.hasParent && t.parent != uuid {
			k.parent, k.hasParent = t.parent, true
		}
		members[k] = append(members[k], uuid)
	}
	c.groupOf = map[uint64]*laneGroup{}
	c.holding = map[uint64]int{}
	for k, uuids := range members {
		if len(uuids) < 2 {
			continue
		}
		g := &laneGroup{key: k, uuid: uuids[0]}
		for _, u := range uuids {
			c.groupOf[u] = g
			c.cat.tracks[u].lanes = g
		}
	}
}

// laneFor returns the lane container of track uuid, of a group, for an
// event at ts: the lane the track holds while an operation of it is open,
// else the lowest lane whose last operation ended by ts (created when none
// has), which the track then holds until release.
func (c *containers) laneFor(uuid uint64, g *laneGroup, ts trace.Time) int32 {
	if i, ok := c.holding[uuid]; ok {
		return g.lanes[i].cont
	}
	i := 0
	for ; i < len(g.lanes); i++ {
		if l := &g.lanes[i]; !l.held && l.lastEnd <= ts {
			break
		}
	}
	if i == len(g.lanes) {
		parent := c.trackParent(g.uuid, c.cat.tracks[g.uuid], 0)
		g.lanes = append(g.lanes, lane{cont: c.m.container("Track", c.m.laneName(parent, g.key.name, i), "", parent), lastEnd: ts})
	}
	l := &g.lanes[i]
	l.held, l.holder = true, uuid
	c.holding[uuid] = i
	return l.cont
}

// release frees the lane track uuid holds once its operation is over (no
// slice open on the lane's stack, st), at ts.
func (c *containers) release(uuid uint64, g *laneGroup, st *stack, ts trace.Time) {
	i, ok := c.holding[uuid]
	if !ok || (st != nil && len(st.open) > 0) {
		return
	}
	l := &g.lanes[i]
	l.held = false
	l.lastEnd = max(l.lastEnd, ts)
	delete(c.holding, uuid)
}

// firstLane is the container standing for a group's track as a parent
// (of child tracks, of counters): its first lane.
func (c *containers) firstLane(g *laneGroup) int32 {
	if len(g.lanes) == 0 {
		parent := c.trackParent(g.uuid, c.cat.tracks[g.uuid], 0)
		g.lanes = append(g.lanes, lane{cont: c.m.container("Track", g.key.name, "", parent), lastEnd: -1 << 63})
	}
	return g.lanes[0].cont
}
