package otf2

import (
	"errors"
	"io/fs"
	"math"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
)

// Local definition records: a location's definition file maps the IDs its
// events use to global IDs and gives the offsets of its clock.
const (
	defMappingTable = 5
	defClockOffset  = 6
)

// Mapping types: which kind of definition a mapping table translates.
const (
	mapString    = 0
	mapAttribute = 1
	mapLocation  = 2
	mapRegion    = 3
	mapGroup     = 4
	mapMetric    = 5
	mapComm      = 6
	mapParameter = 7
	mapTypes     = 15 // number of mapping types defined by OTF2 3.0
)

// idMap translates local IDs to global IDs. Dense maps list the global ID
// of local IDs 0, 1, 2...; sparse maps list pairs.
type idMap struct {
	dense  []uint64
	sparse map[uint64]uint64
}

// global maps id; IDs the table does not mention are left unchanged, as
// the OTF2 library does.
func (m *idMap) global(id uint64) uint64 {
	switch {
	case m == nil:
		return id
	case m.sparse != nil:
		if g, ok := m.sparse[id]; ok {
			return g
		}
	case id < uint64(len(m.dense)):
		return m.dense[id]
	}
	return id
}

// localDefs is what a location's definition file tells about its events.
type localDefs struct {
	maps  [mapTypes]*idMap
	clock clockCorrection
	// missing tells that the location has no definition file: a writer
	// may leave it out when the location needs no mapping, but it is also
	// what a lost file looks like, so the read says so.
	missing bool
}

// readLocalDefs reads the definition file of location loc. Locations
// without one use global IDs and the global clock.
func readLocalDefs(a *anchor, loc uint64, hold func(int64) error) (*localDefs, error) {
	path := a.localDefsPath(loc)
	data, err := ingest.ReadFileHeld(a.dir, path, 0, hold)
	if errors.Is(err, fs.ErrNotExist) {
		return &localDefs{missing: true}, nil
	}
	if err != nil { // a directory in its place, unreadable...
		return nil, &errs.FormatError{File: path, Err: err}
	}
	l, derr := decodeLocalDefs(data, a.chunkDefs)
	if hold != nil {
		hold(-int64(len(data)))
	}
	if derr != nil {
		return nil, &errs.FormatError{File: path, AtOffset: true, Offset: derr.offset, Err: errorString(derr.msg)}
	}
	if hold != nil {
		// The ID maps are held for the whole read: a record of n bytes
		// may declare n entries, each 8 bytes in a dense map and about
		// 40 in a sparse one.
		w := int64(0)
		for _, m := range l.maps {
			if m != nil {
				w += 8*int64(len(m.dense)) + 40*int64(len(m.sparse))
			}
		}
		if err := hold(w); err != nil {
			return nil, &errs.FormatError{File: path, Err: err}
		}
	}
	return l, nil
}

func decodeLocalDefs(data []byte, chunkSize uint64) (*localDefs, *decodeError) {
	l := &localDefs{}
	var last *clockInterval // the latest offset, which starts an interval
	err := forEachDefRecord(data, chunkSize, func(kind uint8, r *cursor, at int64) *decodeError {
		switch kind {
		case defMappingTable:
			kind := r.u8()
			m := readIDMap(r)
			if r.err != nil {
				return r.recordErr("MappingTable")
			}
			if kind >= mapTypes {
				return nil // a mapping type from a later OTF2 version
			}
			if l.maps[kind] != nil {
				return &decodeError{offset: at, msg: "two mapping tables of type " + strconv.Itoa(int(kind))}
			}
			l.maps[kind] = m
		case defClockOffset:
			t, off := r.u64Full(), r.i64()
			r.f64() // standard deviation
			if r.err != nil {
				return r.recordErr("ClockOffset")
			}
			if last != nil {
				if t <= last.begin {
					return &decodeError{offset: at, msg: "clock offsets are not in increasing time order"}
				}
				// The offset changes linearly from one synchronisation
				// to the next; the difference is converted to float as a
				// whole to keep its precision.
				last.end = t
				last.slope = float64(off-last.offset) / float64(t-last.begin)
				l.clock.intervals = append(l.clock.intervals, *last)
			}
			last = &clockInterval{begin: t, offset: off}
		}
		return nil
	})
	return l, err
}

// readIDMap reads an ID map: the number of entries, the mode (0 dense,
// 1 sparse) and the compressed IDs.
func readIDMap(r *cursor) *idMap {
	n, mode := r.u64(), r.u8()
	if r.err != nil {
		return nil
	}
	// Each ID takes at least one byte: refuse counts the record cannot hold
	// before allocating.
	left := uint64(len(r.buf) - r.pos)
	switch {
	case mode > 1:
		r.pos--
		r.fail(false, "invalid ID map mode %d", mode)
	case n > left || (mode == 1 && n > left/2):
		r.fail(false, "ID map claims %d entries in %d bytes", n, left)
	}
	if r.err != nil {
		return nil
	}
	m := &idMap{}
	if mode == 0 {
		m.dense = make([]uint64, n)
		for i := range m.dense {
			m.dense[i] = r.u64()
		}
		return m
	}
	m.sparse = make(map[uint64]uint64, n)
	for range n {
		local := r.u64()
		m.sparse[local] = r.u64()
	}
	return m
}

// clockCorrection moves a location's timestamps onto the global clock. The
// location's clock offsets, measured at synchronisation points, are
// interpolated linearly in between; before the first interval and after
// the last one the nearest interval is extended. A location with fewer
// than two offsets is not corrected. This is the OTF2 library's algorithm,
// reproduced to the tick, rounding included, so that timestamps agree with
// every OTF2-based tool.
type clockCorrection struct {
	intervals []clockInterval
	current   int // interval of the latest timestamp: timestamps never decrease
}

type clockInterval struct {
	begin, end uint64
	offset     int64
	slope      float64
}

func (cc *clockCorrection) apply(t uint64) uint64 {
	if len(cc.intervals) == 0 {
		return t
	}
	for cc.current+1 < len(cc.intervals) && t > cc.intervals[cc.current].end {
		cc.current++
	}
	iv := &cc.intervals[cc.current]
	var diff float64
	if t >= iv.begin {
		diff = float64(t - iv.begin)
	} else {
		diff = -float64(iv.begin - t)
	}
	off := iv.offset + int64(math.RoundToEven(iv.slope*diff))
	return t + uint64(off)
}
