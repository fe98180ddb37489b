package otf2

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// readFile reads a whole OTF2 archive into memory. path is the archive's
// anchor file (traces.otf2, APEX.otf2: any name) or the directory that
// holds it.
func readFile(path string) (*trace.Trace, error) {
	return trace.Load(path, Read)
}

// Read streams the OTF2 archive whose anchor file is path (or the
// directory that holds it) into sink. The location files are decoded in
// parallel; the sink is called from the calling goroutine only, in an
// order that does not depend on scheduling.
func Read(path string, sink trace.Sink, opt trace.ReadOptions) error {
	arch, err := open(path, nil, opt.Held)
	if err != nil {
		return err
	}
	defer arch.release()
	return arch.read(sink, opt)
}

// archive is an opened archive: its anchor, definitions and event files.
type archive struct {
	anchor  *anchor
	defs    *definitions
	tb      timeBase
	streams []*stream
	total   int64 // bytes of the event files
	// missing are the parts of the archive its definitions announce but
	// that are not there (see open); the read marks the trace incomplete.
	missing []string
	// subset tells that some location groups are left out (readGroups).
	subset bool
	// held is what the definitions weigh against the read's budget (see
	// open), given back by release once the read is over.
	held int64
	hold func(int64) error
}

// open reads the anchor file, the global definitions and the definitions
// of every location (of the location groups keep accepts, when not nil),
// and prepares their event files for reading. hold (a
// trace.ReadOptions.Held, or nil) weighs what the definitions take in
// memory against the user's budget: a few kilobytes of records may
// declare millions of group members or ID map entries, held for the
// whole read.
func open(path string, keep func(group uint32) bool, hold func(int64) error) (arch *archive, err error) {
	if hold != nil {
		// What the definitions weigh is counted, to be given back when
		// the read is over (release) or fails here: a read in several
		// passes, or by parts under one budget, would otherwise count the
		// definitions of every pass and part it has done.
		var held int64
		budgetHold := hold
		hold = func(n int64) error { held += n; return budgetHold(n) }
		defer func() {
			if err != nil || arch == nil { // a panic of a hostile file's, too
				budgetHold(-held)
			} else {
				arch.held, arch.hold = held, budgetHold
			}
		}()
	}
	anchorPath, err := findAnchor(path)
	if err != nil {
		return nil, err
	}
	a, err := readAnchor(anchorPath)
	if err != nil {
		return nil, err
	}
	defs, err := readDefinitions(a, hold)
	if err != nil {
		return nil, err
	}
	arch = &archive{anchor: a, defs: defs, tb: timeBase{defs.clock.offset, defs.clock.resolution}}
	var noEvents, noDefs []string
	for i, l := range defs.locations {
		if keep != nil && !keep(l.group) {
			arch.subset = true
			continue
		}
		path := a.eventsPath(l.id)
		st, err := ingest.CheckIn(a.dir, path)
		if errors.Is(err, fs.ErrNotExist) && l.events == 0 {
			continue // a location that recorded nothing may have no file
		}
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, ingest.ErrNotRegular), err == nil && !st.Mode().IsRegular(),
			err == nil && st.Size() == 0 && l.events > 0:
			// The definitions announce events the archive lacks: the
			// location is kept (the hierarchy is the definitions'), its
			// events are not there, and the trace says so.
			noEvents = append(noEvents, locationLabel(defs, l))
			continue
		case err != nil:
			return nil, &errs.FormatError{File: a.globalDefsPath(), AtOffset: true, Offset: l.at,
				Err: fmt.Errorf("location %d announces %d events, but its event file cannot be read: %w", l.id, l.events, err)}
		}
		local, err := readLocalDefs(a, l.id, hold)
		if err != nil {
			return nil, err
		}
		if local.missing {
			noDefs = append(noDefs, locationLabel(defs, l))
		}
		arch.total += st.Size()
		arch.streams = append(arch.streams, &stream{loc: i, file: &eventFile{
			path: path, dir: a.dir, size: st.Size(), chunkSize: int64(a.chunkEvents),
			maps: &local.maps, clock: local.clock, tb: arch.tb,
		}})
	}
	if keep == nil && len(arch.streams) == 0 && len(noEvents) > 0 {
		// Not one event file: the anchor and the definitions were copied
		// without the directory of events (a repository that keeps
		// traces.otf2 and traces.def only). Read, it would be a trace
		// of no event that each analysis refuses for a reason of its
		// own; the cause is here.
		eventsDir := filepath.Join(a.dir, a.name)
		return nil, errs.Format(eventsDir, 0, "none of the %d location(s) that the definitions announce with events has its event file "+
			"(%s): the archive holds its definitions only, without its events (%s); copy the whole archive directory",
			len(noEvents), listSome(noEvents), filepath.Join(eventsDir, "LOCATION.evt"))
	}
	if len(noEvents) > 0 {
		arch.missing = append(arch.missing, fmt.Sprintf("%s: %d location(s) announced by the definitions have no event file (%s): their events are missing",
			a.dir, len(noEvents), listSome(noEvents)))
	}
	if len(noDefs) > 0 {
		arch.missing = append(arch.missing, fmt.Sprintf("%s: %d location(s) have no local definition file (%s): their events are read with global ids and the global clock, which may be wrong",
			a.dir, len(noDefs), listSome(noDefs)))
	}
	return arch, nil
}

// release gives back to the read's budget what the definitions weighed
// (see open), once the read is over.
func (a *archive) release() {
	if a.hold != nil && a.held != 0 {
		a.hold(-a.held)
		a.held = 0
	}
}

// locationLabel names a location for the user: its name and id.
func locationLabel(d *definitions, l location) string {
	if name, ok := d.strings[l.name]; ok && name != "" {
		return fmt.Sprintf("%q (id %d)", name, l.id)
	}
	return fmt.Sprintf("id %d", l.id)
}

// listSome lists up to five items and counts the others.
func listSome(items []string) string {
	const shown = 5
	if len(items) <= shown {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:shown], ", "), len(items)-shown)
}

// progressEvery is how many bytes pass between two progress reports.
const progressEvery = 4 << 20

// cancelEvery is how many records pass between two looks at
// ReadOptions.Cancel.
const cancelEvery = 1 << 14

func (arch *archive) read(sink trace.Sink, opt trace.ReadOptions) error {
	for _, m := range arch.missing {
		opt.Incomplete("%s", m)
	}
	if r := arch.defs.redefined; len(r) > 0 {
		var what []string
		for _, name := range []string{"Group", "Comm"} {
			if r[name] > 0 {
				what = append(what, fmt.Sprintf("%d %s", r[name], name))
			}
		}
		opt.Warn("%s: %s definition(s) give an ID already defined (the first at byte %d; EZTrace 2.0 writes such): each ID keeps its first definition",
			arch.anchor.globalDefsPath(), strings.Join(what, " and "), arch.defs.first)
	}
	h, err := arch.hierarchy(sink)
	if err != nil {
		return err
	}
	sim := newSimulator(arch.anchor, arch.defs, h)
	sim.subset, sim.opt = arch.subset, opt
	m := newMerger(arch.streams)
	var done, next int64
	if opt.Progress != nil {
		m.progress = func(n int64) {
			if done += n; done >= next {
				opt.Progress(done, arch.total)
				next = done + progressEvery
			}
		}
	}
	handle := sim.handle
	if opt.Cancel != nil {
		var records int
		handle = func(loc int, r *record, values []float64) error {
			if records++; records%cancelEvery == 0 {
				if err := opt.Canceled(); err != nil {
					return err
				}
			}
			return sim.handle(loc, r, values)
		}
	}
	if err := opt.Canceled(); err != nil {
		return err
	}
	if err := m.run(handle); err != nil {
		return err
	}
	sim.finish()
	if opt.Progress != nil {
		opt.Progress(done, arch.total)
	}
	return nil
}

// hierarchy defines the archive's containers in sink: the whole
// hierarchy, whatever the location groups read.
func (arch *archive) hierarchy(sink trace.Sink) (*hierarchy, error) {
	h := &hierarchy{
		sym: newSymbols(sink), defs: arch.defs, defsPath: arch.anchor.globalDefsPath(),
		types: []int32{trace.None}, nodes: map[uint32]int32{}, groups: map[uint32]int32{},
		locIndex: map[uint64]int{},
	}
	return h, h.build(0)
}
