package critpath

import (
	"slices"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/mpi"
)

// activity is what a resource did over the run, as pieces that tile
// [start, the last piece's end]: each piece runs from the end of the one
// before (start for the first) to its own end, doing its name. The pieces
// are not held in memory: they go to a spool (kept in memory up to the
// spill's share, then in its file, which lives as long as the Result:
// the delay costs read them when asked), and only the last end of each of
// its chunks stays, to find the chunk that holds an instant. The
// attribution and the delay costs read the chunks they need; each
// resource keeps the one it read last, as both move along a resource a
// step at a time (the path forwards, the delay costs backwards).
type activity struct {
	start    trace.Time
	pieces   mpi.Spool[pieceEnd]
	chunkEnd []trace.Time // the last end of each chunk of pieces
	// While it is built: the last piece, not yet in the spool (a piece
	// that goes on with the same name makes it longer).
	last     openPiece
	building bool
	lastEnd  trace.Time // the end of the piece appended last
	// total adds up the time of each name over every resource's pieces
	// as they are appended (shared by the activities of a run; nil for
	// none): the attribution's totals without reading them back.
	total []trace.Time
	// The two chunks read last (keyed by their indices in chunkEnd), and
	// the one each reads.
	read2 twoChunks[pieceEnd]
	cur   []pieceEnd
	// Where the last visit began: its chunk and piece. The next visit
	// searches out from there, as the delay costs ask about nearby
	// instants of each resource in turn.
	hintChunk, hintPiece int
}

// pieceEnd is a piece of an activity as it is spooled: where it ends (in
// two halves, end, so that a piece takes 12 bytes in the spool and its
// file rather than the 16 of a trace.Time beside an int32) and what the
// resource did (a name index).
type pieceEnd struct {
	endLow, endHigh uint32
	name            int32
}

func (p *pieceEnd) end() trace.Time { return trace.Time(uint64(p.endHigh)<<32 | uint64(p.endLow)) }

// openPiece is the last piece of an activity while it is built.
type openPiece struct {
	end  trace.Time
	name int32
}

// spooled is the piece as the spool keeps it.
func (p openPiece) spooled() pieceEnd {
	return pieceEnd{endLow: uint32(p.end), endHigh: uint32(uint64(p.end) >> 32), name: p.name}
}

// newActivity returns an empty activity whose pieces go to spill's file
// beyond its share of memory, their times added up into total by name.
func newActivity(start trace.Time, spill *mpi.Spill, total []trace.Time) activity {
	return activity{start: start, pieces: mpi.NewSpool[pieceEnd](spill), read2: newTwoChunks[pieceEnd](), total: total}
}

// add adds a piece from from to to doing name (from being the last
// piece's end), if it lasts.
func (a *activity) add(from, to trace.Time, name int32) {
	if to <= from {
		return
	}
	if a.building && a.last.name == name && a.last.end == from {
		a.last.end = to
		return
	}
	if !a.building {
		if a.pieces.Len() == 0 {
			a.start = from
		}
		a.building = true
	} else {
		a.push()
	}
	a.last = openPiece{to, name}
}

// push appends the last piece to the spool, noting the last end of the
// chunk it closes when it begins a new one.
func (a *activity) push() {
	chunks := a.pieces.Chunks()
	prev := a.pieces.Len()
	if a.total != nil {
		from := a.start
		if prev > 0 {
			from = a.lastEnd
		}
		a.total[a.last.name] += a.last.end - from
	}
	a.pieces.Append(a.last.spooled())
	if a.pieces.Chunks() != chunks && prev > 0 {
		a.chunkEnd = append(a.chunkEnd, a.lastEnd)
	}
	a.lastEnd = a.last.end
}

// finish appends the last piece: the activity is built.
func (a *activity) finish() {
	if a.building {
		a.push()
		a.building = false
	}
	if a.pieces.Len() > 0 {
		a.chunkEnd = append(a.chunkEnd, a.lastEnd)
	}
}

// each calls visit with every piece overlapping [from, to), clipped to
// it, in time order. It stops early when the spill file cannot be read
// (the spill's Err says so).
func (a *activity) each(from, to trace.Time, visit func(s, e trace.Time, name int32)) {
	// The first chunk with a piece ending after from, and in it the
	// first such piece.
	k := a.chunkOf(from)
	for ; k < len(a.chunkEnd); k++ {
		if !a.read(k) {
			return
		}
		start := a.start
		if k > 0 {
			start = a.chunkEnd[k-1]
		}
		i := 0
		if start <= from {
			i = a.firstEndingAfter(k, from)
			if i > 0 {
				start = a.cur[i-1].end()
			}
		}
		for ; i < len(a.cur); i++ {
			p := a.cur[i]
			s, e := max(start, from), min(p.end(), to)
			if s >= to {
				return
			}
			if e > s {
				visit(s, e, p.name)
			}
			start = p.end()
		}
	}
}

// chunkOf returns the first chunk with a piece ending after t,
// len(a.chunkEnd) if none: the chunk of the last visit when it is that
// one, else found by halving.
func (a *activity) chunkOf(t trace.Time) int {
	if k := a.hintChunk; k < len(a.chunkEnd) && a.chunkEnd[k] > t && (k == 0 || a.chunkEnd[k-1] <= t) {
		return k
	}
	k, _ := slices.BinarySearch(a.chunkEnd, t+1)
	return k
}

// firstEndingAfter returns the index of the first piece of chunk k
// (a.cur) ending after t, len(a.cur) if none, and notes it as where the
// last visit began. It searches out from the piece noted last when that
// was in chunk k, doubling its step, then halves what it stepped over
// (the delay costs search twice per wait state, a step or two from
// their last answer).
func (a *activity) firstEndingAfter(k int, t trace.Time) int {
	chunk := a.cur
	n := len(chunk)
	past := func(i int) bool { return i == n || chunk[i].end() > t }
	h := 0
	if a.hintChunk == k {
		h = a.hintPiece
	}
	hi := gallop(0, n, h, past)
	a.hintChunk, a.hintPiece = k, hi
	return hi
}

// read makes chunk k the one each reads (a.cur).
func (a *activity) read(k int) bool {
	chunk, ok := a.read2.get(k, &a.pieces, k)
	a.cur = chunk
	return ok
}

// times adds to into[name] the time of each name within [from, to].
func (a *activity) times(from, to trace.Time, into []trace.Time, touched *[]int32) {
	a.each(from, to, func(s, e trace.Time, n int32) {
		if into[n] == 0 {
			*touched = append(*touched, n)
		}
		into[n] += e - s
	})
}
