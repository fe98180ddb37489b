package otf2

import (
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

// locationGroups returns the IDs of the archive's location groups that
// have locations with event files, in definition order.
func locationGroups(path string) ([]uint32, error) {
	arch, err := open(path, nil, nil)
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

// separable tells whether the location groups of the archive at path,
// read apart (readGroups, with their unmatched messages kept and matched:
// matchMessages), add up to the whole archive: whether every metric
// series is fed by the locations of one group. A metric class is
// recorded on the location that samples it, in its group; a metric
// instance reports on its scope from its recorder, so the instances on a
// scope must have their recorders in one group, the scope's own when it
// is a location (the MI300 runs of the corpus record the metrics of the
// GPUs' contexts and node from the process's group): samples from two groups on one
// system tree node, say, make one series of the whole read, which the
// groups read apart would cut in two.
func separable(path string) (bool, error) {
	arch, err := open(path, func(uint32) bool { return false }, nil) // the definitions only
	if err != nil {
		return false, err
	}
	d := arch.defs
	groupOf := make(map[uint64]uint32, len(d.locations))
	for _, l := range d.locations {
		groupOf[l.id] = l.group
	}
	feeder := map[[2]uint64]uint32{} // the group of the recorders on a scope
	for _, m := range d.metrics {
		if !m.instance || m.scopeKind == scopeGroup {
			continue
		}
		g, ok := groupOf[m.recorder]
		if !ok {
			return false, nil
		}
		if m.scopeKind == scopeLocation {
			// The location's own samples (of metric classes) feed it too.
			if own, ok := groupOf[m.scope]; !ok || own != g {
				return false, nil
			}
		}
		scope := [2]uint64{uint64(m.scopeKind), m.scope}
		if f, ok := feeder[scope]; ok && f != g {
			return false, nil
		}
		feeder[scope] = g
	}
	return true, nil
}

// readGroups streams the records of the locations of the given location
// groups only (all of them when groups is nil).
func readGroups(path string, groups []uint32, sink trace.Sink, opt trace.ReadOptions) error {
	arch, err := openGroups(path, groups, opt.Held)
	if err != nil {
		return err
	}
	defer arch.release()
	return arch.read(sink, opt)
}

// openGroups opens the archive at path for the locations of the given
// location groups only (all of them when groups is nil): only their
// definitions and event files are opened.
func openGroups(path string, groups []uint32, hold func(int64) error) (*archive, error) {
	var keep func(uint32) bool
	if groups != nil {
		keep = func(g uint32) bool { return slices.Contains(groups, g) }
	}
	arch, err := open(path, keep, hold)
	if err != nil {
		return nil, err
	}
	if groups != nil {
		if err := arch.selectGroups(groups); err != nil {
			return nil, err
		}
	}
	return arch, nil
}

// selectGroups keeps the event files of the given location groups only.
func (arch *archive) selectGroups(groups []uint32) error {
	known := map[uint32]bool{}
	for _, g := range arch.defs.lgroups {
		known[g.id] = true
	}
	for _, g := range groups {
		if !known[g] {
			return errs.Argument("location_groups", "the archive has no location group %d", g)
		}
	}
	kept := arch.streams[:0]
	arch.total = 0
	for _, st := range arch.streams {
		if slices.Contains(groups, arch.defs.locations[st.loc].group) {
			kept = append(kept, st)
			arch.total += st.file.size
		}
	}
	arch.streams = kept
	arch.subset = true
	return nil
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
