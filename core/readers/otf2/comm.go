package otf2

import (
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// commRanks tells which location holds each rank of a communicator.
type commRanks struct {
	name string
	self bool    // a self-like communicator: rank 0 is the calling location
	locs []int32 // location index of each rank
}

// isRank tells whether location loc holds rank rank of the communicator.
// It is false for OTF2_CollectiveRoot's special values, all past any
// rank: ROOT_NONE (OTF2_UNDEFINED_UINT32, an unrooted collective), and
// ROOT_SELF and ROOT_THIS_GROUP, which only inter-communicators' records
// name (and comm does not resolve those).
func (c *commRanks) isRank(rank uint32, loc int32) bool {
	if c.self {
		return rank == 0
	}
	return uint64(rank) < uint64(len(c.locs)) && c.locs[rank] == loc
}

// rankLocation returns the location of the peer rank of a point-to-point
// record (the receiver of a send, the sender of a receive).
func (s *simulator) rankLocation(loc int, r *record) (int32, error) {
	c, err := s.comm(r.ref)
	if err != nil {
		return 0, err
	}
	switch {
	case c.self && r.peer == 0:
		return int32(loc), nil
	case !c.self && uint64(r.peer) < uint64(len(c.locs)):
		return c.locs[r.peer], nil
	}
	size := len(c.locs)
	if c.self {
		size = 1
	}
	return 0, s.fail(loc, r, "%s names rank %d of communicator %q, which has %d ranks", recordName(r.kind), r.peer, c.name, size)
}

// comm resolves a communicator's ranks once: its group lists ranks of the
// COMM_LOCATIONS group of the same paradigm, which lists locations.
func (s *simulator) comm(id uint32) (*commRanks, error) {
	if c, ok := s.comms[id]; ok {
		return c, nil
	}
	path := s.a.globalDefsPath()
	def, ok := s.defs.comms[id]
	if !ok {
		if at, inter := s.defs.interComms[id]; inter {
			return nil, &errs.FormatError{File: path, AtOffset: true, Offset: at, Err: fmt.Errorf("communicator %d is an inter-communicator, which this reader does not support", id)}
		}
		return nil, &errs.FormatError{File: path, Err: fmt.Errorf("communicator %d is not defined", id)}
	}
	fail := func(format string, args ...any) error {
		return &errs.FormatError{File: path, AtOffset: true, Offset: def.at, Err: fmt.Errorf("communicator %d: "+format, append([]any{id}, args...)...)}
	}
	name, derr := s.defs.str(def.name, "name of communicator "+itoa(uint64(id)), def.at)
	if derr != nil {
		return nil, s.failDecode(derr)
	}
	switch {
	case name == "":
		name = s.idName(id, "unnamed")
	case s.commNameUses(name) > 1:
		// The analyses pair a collective's calls by the communicator's
		// name: communicators of different groups that an application
		// named alike (every row communicator "row") are not one.
		name += " (Comm " + itoa(uint64(id)) + ")"
	}
	c := &commRanks{name: name}
	g, ok := s.defs.groups[def.group]
	if !ok {
		return nil, fail("its group %d is not defined", def.group)
	}
	switch g.kind {
	case groupTypeCommSelf:
		c.self = true
	case groupTypeCommLocations:
		ranks, err := s.locationIndexes(g.members)
		if err != nil {
			return nil, fail("%v", err)
		}
		c.locs = ranks
	case groupTypeCommGroup:
		world, ok := s.commLocations(g.paradigm)
		if !ok {
			return nil, fail("no COMM_LOCATIONS group of paradigm %d lists its locations", g.paradigm)
		}
		members := world.members
		if g.flags&groupFlagGlobalMembers == 0 {
			members = make([]uint64, len(g.members))
			for i, m := range g.members {
				if m >= uint64(len(world.members)) {
					return nil, fail("its rank %d is member %d of a COMM_LOCATIONS group of %d", i, m, len(world.members))
				}
				members[i] = world.members[m]
			}
		}
		ranks, err := s.locationIndexes(members)
		if err != nil {
			return nil, fail("%v", err)
		}
		c.locs = ranks
	default:
		return nil, fail("its group %d has type %d, not a communicator group", def.group, g.kind)
	}
	s.comms[id] = c
	return c, nil
}

// idName names communicator id, which has no name of its own (why:
// "unnamed", "unresolved"), by its ID: "Comm 5". When a communicator the
// file defines bears that very name, the ID's is told apart from it
// ("Comm 5 (unnamed)"): the analyses pair a collective's calls by the
// communicator's name, and the two are not one.
func (s *simulator) idName(id uint32, why string) string {
	name := "Comm " + itoa(uint64(id))
	if s.commNameUses(name) > 0 {
		name += " (" + why + ")"
	}
	return name
}

// commNameUses tells how many communicator definitions bear name.
func (s *simulator) commNameUses(name string) int {
	if s.commNames == nil {
		s.commNames = make(map[string]int, len(s.defs.comms))
		for _, def := range s.defs.comms {
			if n, ok := s.defs.strings[def.name]; ok {
				s.commNames[n]++
			}
		}
	}
	return s.commNames[name]
}

// commLocations finds the COMM_LOCATIONS group of a paradigm; if several
// exist, the one with the smallest ID.
func (s *simulator) commLocations(paradigm uint8) (group, bool) {
	var best group
	bestID, found := uint32(0), false
	for id, g := range s.defs.groups {
		if g.kind == groupTypeCommLocations && g.paradigm == paradigm && (!found || id < bestID) {
			best, bestID, found = g, id, true
		}
	}
	return best, found
}

func (s *simulator) locationIndexes(ids []uint64) ([]int32, error) {
	out := make([]int32, len(ids))
	for i, id := range ids {
		j, ok := s.h.locIndex[id]
		if !ok {
			return nil, fmt.Errorf("rank %d is location %d, which is not defined", i, id)
		}
		out[i] = int32(j)
	}
	return out, nil
}
