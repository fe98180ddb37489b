package partition

import (
	"errors"
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Some links have their ends in two parts: the messages between the
// location groups of an OTF2 archive, whose sends lie in the sender's
// group and receives in the receiver's. Each part keeps the ends it could
// not pair (ingest.Ends), and once all the parts are read, the format
// pairs the ends of all (ingest.Parts.PairEnds) as the read of the whole
// trace pairs them, into a partial model of their own (links, unpaired
// ends), merged last. Local does it in memory; on a cluster, each part's
// ends travel encoded with its partial (BuildMessages), add up along the
// partials' reduction (MergeMessages), and are paired where the partials
// end up (MatchMessages). Pairing needs the ends of both sides of a link,
// which lie in two parts: it happens once, with all of them.

// keeper is the sink of a part that keeps the ends of the links the part
// leaves unpaired (ingest.EndsKeeper).
type keeper struct {
	trace.Sink
	ends ingest.Ends
}

func (k *keeper) KeepEnds(e ingest.Ends) { k.ends = e }

// none reports whether e holds no end.
func none(e ingest.Ends) bool { return e == nil || e.Len() == 0 }

// BuildMessages is Build for a part read in another process: when the
// part's format pairs links between parts (the location groups of an
// OTF2 archive), it also returns the ends the part leaves unpaired,
// encoded (ingest.Ends.MarshalBinary), rather than counting them as
// skipped; nil when there are none. MatchMessages makes them into the
// partial model that completes the parts'.
func BuildMessages(p Part, opt micro.Options, start, end trace.Time, ro trace.ReadOptions) (*micro.Partial, []byte, error) {
	part, ends, err := build(p, opt, start, end, ro, true)
	if err != nil || none(ends) {
		return part, nil, err
	}
	data, err := ends.MarshalBinary()
	return part, data, err
}

// MergeMessages adds up the encoded ends of two consecutive runs of parts,
// a's before b's (nil for none): pairing the sum is pairing a's then b's.
// It is associative, as micro.Merge is, so the ends can follow the
// partials' reduction tree.
func MergeMessages(a, b []byte) ([]byte, error) {
	if len(a) == 0 {
		return b, nil
	}
	if len(b) == 0 {
		return a, nil
	}
	ea, err := unmarshalEnds(a)
	if err != nil {
		return nil, err
	}
	eb, err := unmarshalEnds(b)
	if err != nil {
		return nil, err
	}
	ea.Add(eb)
	return ea.MarshalBinary()
}

// unmarshalEnds decodes ends that travel without the name of their
// format: the formats whose parts leave ends are asked in the registry's
// order, and the first that takes the bytes decodes them (each encoding
// starts with its format's own magic). The error is the first format's.
func unmarshalEnds(data []byte) (ingest.Ends, error) {
	var first error
	for _, f := range formats.All {
		if f.Parts == nil || f.Parts.UnmarshalEnds == nil {
			continue
		}
		e, err := f.Parts.UnmarshalEnds(data)
		if err == nil {
			return e, nil
		}
		if first == nil {
			first = err
		}
	}
	if first == nil {
		first = errors.New("partition: no format leaves ends between its parts")
	}
	return nil, first
}

// MatchMessages makes the partial model of the links between the parts of
// a trace that the parts left unpaired: p is one of the parts (its path
// and format name the trace), msgs are their encoded ends (BuildMessages,
// or their sums, MergeMessages; nil for none) in the order of the parts,
// parts the parts' partial models (or their merge: only their extent
// counts), all built with opt on the window [start, end]. Merged after
// the parts' (micro.Merge in the plan's order), it makes their model the
// whole trace's, as Local's.
func MatchMessages(p Part, msgs [][]byte, opt micro.Options, start, end trace.Time, parts ...*micro.Partial) (*micro.Partial, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("partition: no partial model to match the messages of %s with", p.Path)
	}
	f, err := formatOf(p.Path, p.Format)
	if err != nil {
		return nil, err
	}
	if f.Parts == nil || f.Parts.PairEnds == nil {
		return nil, fmt.Errorf("partition: the parts of %s traces leave no links to pair", f.Name)
	}
	kept := make([]ingest.Ends, len(msgs))
	for i, data := range msgs {
		if len(data) == 0 {
			continue
		}
		if kept[i], err = f.Parts.UnmarshalEnds(data); err != nil {
			return nil, fmt.Errorf("messages of part %d: %w", i, err)
		}
	}
	return matchMessages(p.Path, f.Parts, kept, opt, start, end, parts)
}

// matchMessages makes the partial model of the links between the parts of
// the trace at path that they left unpaired (see ingest.Parts.PairEnds),
// on the window of the parts. It forgets the ends, which the model no
// longer needs.
func matchMessages(path string, how *ingest.Parts, ends []ingest.Ends, opt micro.Options, start, end trace.Time, parts []*micro.Partial) (*micro.Partial, error) {
	acc, err := micro.NewPartialAccumulator(opt, start, end)
	if err != nil {
		return nil, err
	}
	first, last := parts[0].Start, parts[0].End
	for _, p := range parts {
		first, last = min(first, p.Start), max(last, p.End)
	}
	if err := how.PairEnds(path, ends, acc, first, last, trace.ReadOptions{}); err != nil {
		return nil, err
	}
	clear(ends)
	return acc.Partial()
}
