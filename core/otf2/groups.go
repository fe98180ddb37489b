package otf2

import (
	"math"
	"slices"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A trace's location groups (the processes of an MPI run, a GPU's
// streams) are read apart when the archive is split across processes:
// each part reads the global definitions, so the whole hierarchy, and the
// event files of its groups only. The records of the groups read are the
// same as in a whole read; messages whose other end lies in a group not
// read cannot be matched, and are counted as skipped rather than reported
// as unmatched.

// LocationGroups returns the IDs of the archive's location groups that
// have locations with event files, in definition order.
func LocationGroups(path string) ([]uint32, error) {
	arch, err := open(path, nil)
	if err != nil {
		return nil, err
	}
	var ids []uint32
	for _, st := range arch.streams {
		g := arch.defs.locations[st.loc].group
		if !slices.Contains(ids, g) {
			ids = append(ids, g)
		}
	}
	return ids, nil
}

// ReadGroups streams the records of the locations of the given location
// groups only (all of them when groups is nil).
func ReadGroups(path string, groups []uint32, sink trace.Sink, opt trace.ReadOptions) error {
	var keep func(uint32) bool
	if groups != nil {
		// Only the kept locations' definitions and event files are opened.
		keep = func(g uint32) bool { return slices.Contains(groups, g) }
	}
	arch, err := open(path, keep)
	if err != nil {
		return err
	}
	if groups != nil {
		known := map[uint32]bool{}
		for _, g := range arch.defs.lgroups {
			known[g.id] = true
		}
		for _, g := range groups {
			if !known[g] {
				return errs.Argument("location_groups", "the archive has no location group %d", g)
			}
		}
	}
	return arch.read(sink, opt)
}

// Probe guesses the extent of the archive at path from its global
// definitions alone: from 0 to the end its ClockProperties give. Records
// that clock corrections move beyond make the trace longer, which a read
// finds (see micro.Stream).
func Probe(path string) (start, end trace.Time, ok bool) {
	anchorPath, err := findAnchor(path)
	if err != nil {
		return 0, 0, false
	}
	a, err := readAnchor(anchorPath)
	if err != nil {
		return 0, 0, false
	}
	defs, err := readDefinitions(a)
	if err != nil || !defs.haveClock {
		return 0, 0, false
	}
	clk := defs.clock
	if clk.length > math.MaxUint64-clk.offset {
		return 0, 0, false
	}
	end, ok = (timeBase{clk.offset, clk.resolution}).toTime(clk.offset + clk.length)
	return 0, end, ok && end > 0
}

// parseGroups reads the location_groups option: decimal IDs.
func parseGroups(names []string) ([]uint32, error) {
	if len(names) == 0 {
		return nil, nil
	}
	out := make([]uint32, len(names))
	for i, s := range names {
		n, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			return nil, errs.Argument("location_groups", "wants location group IDs, not %q", s)
		}
		out[i] = uint32(n)
	}
	return out, nil
}
