package ingest

import "github.com/macroscope-hpc/macroscope/core/trace"

// Parts describes how the traces of a format are cut into parts that
// separate reads (the processes of a cluster, the cores of a machine)
// turn into partial models adding up to the model of the whole trace.
// The format knows what its parts are and which options select them;
// package partition plans the reads from this description and merges
// what they give, without knowing any format.
type Parts struct {
	// Cut lists at most n parts of the trace at path, in order: the
	// options that select each, added to those of the read. No part
	// means the trace cannot be cut (a compressed file): it is read
	// whole.
	Cut func(path string, n int) ([]Part, error)
	// IsPart reports whether the options opt (checked) already select a
	// part of the trace rather than the whole of it.
	IsPart func(opt Values) bool
	// Interleaved tells that the records of the parts interleave in time
	// (each part is some locations of an archive), rather than follow one
	// another (byte ranges of a file, lines of a database): their partial
	// models are then merged by time (micro.ByTime).
	Interleaved bool
	// Separable, if not nil, reports whether the parts of the trace at
	// path, read at once on the cores of one machine, make the model of
	// the whole trace exactly and at no extra cost: the read of such a
	// trace goes by parts unless told otherwise. Formats whose parts
	// only pay off across machines leave it nil.
	Separable func(path string) (bool, error)
	// UnmarshalEnds, if not nil, decodes the ends a part's read left
	// unpaired (see Ends), as their MarshalBinary encoded them. The
	// encoding tells its format: decoding another's fails.
	UnmarshalEnds func(data []byte) (Ends, error)
	// PairEnds pairs the ends the parts of the trace at path left
	// unpaired (in the order of the parts, or added up with Ends.Add; nil
	// entries are skipped) and delivers to sink what the read of the whole
	// trace makes of them: its hierarchy, the links paired, what is left
	// unpaired, then Finish(start, end), the extent of the whole trace
	// the caller found. Set with UnmarshalEnds.
	PairEnds func(path string, parts []Ends, sink trace.Sink, start, end trace.Time, ro trace.ReadOptions) error
}

// Part is a part of a trace, as its format cuts it.
type Part struct {
	// Options are the reader's options that select the part.
	Options Values
	// Label says which part it is, for messages ("bytes 0-1048576").
	Label string
}

// Ends are the ends of the links a read of a part could not pair because
// their other end lies in another part: the messages between the location
// groups of an OTF2 archive, whose sends are all in the sender's group and
// receives in the receiver's. A part's read hands them to its sink when
// the sink keeps them (EndsKeeper), instead of counting them as skipped;
// once all the parts are read, the format pairs them (Parts.PairEnds) as
// the read of the whole trace pairs them, so that the parts and their
// paired ends add up to the whole trace.
type Ends interface {
	// Len is the number of ends.
	Len() int
	// Add appends the ends of a later part of the same trace, which must
	// not be used after: pairing the sum is pairing these ends then
	// those, in that order (Add is associative, not commutative).
	Add(later Ends)
	// MarshalBinary encodes the ends, for another process to pair them
	// (Parts.UnmarshalEnds decodes them).
	MarshalBinary() ([]byte, error)
}

// EndsKeeper is a sink that keeps the ends the read of a part leaves
// unpaired (see Ends): KeepEnds is called once, before Finish.
type EndsKeeper interface {
	trace.Sink
	KeepEnds(Ends)
}
