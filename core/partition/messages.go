package partition

import (
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/readers/otf2"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The messages between the location groups of an OTF2 archive have their
// ends in two parts: each part keeps the ends it could not match
// (otf2.MessageKeeper), and once all the parts are read, the ends of all
// are matched as the read of the whole archive matches them into a
// partial model of their own (links, unmatched ends), merged last. Local
// does it in memory; on a cluster, each part's ends travel encoded with
// its partial (BuildMessages), add up along the partials' reduction
// (MergeMessages), and are matched where the partials end up
// (MatchMessages). Matching needs the ends of both sides of a message
// key, which lie in two parts: it happens once, with all of them.

// keeper is the sink of a part of an OTF2 archive that keeps the messages
// the part leaves unmatched (otf2.MessageKeeper).
type keeper struct {
	trace.Sink
	msgs *otf2.Messages
}

func (k *keeper) KeepMessages(m *otf2.Messages) { k.msgs = m }

// BuildMessages is Build for a part read in another process: when the
// part is some location groups of an OTF2 archive, it also returns the
// message ends the part leaves unmatched, encoded
// (otf2.Messages.MarshalBinary), rather than counting them as skipped;
// nil when there are none. MatchMessages makes them into the partial
// model that completes the parts'.
func BuildMessages(p Part, opt micro.Options, start, end trace.Time, ro trace.ReadOptions) (*micro.Partial, []byte, error) {
	part, msgs, err := build(p, opt, start, end, ro, true)
	if err != nil || msgs.Len() == 0 {
		return part, nil, err
	}
	data, err := msgs.MarshalBinary()
	return part, data, err
}

// MergeMessages adds up the encoded message ends of two consecutive runs
// of parts, a's before b's (nil for none): matching the sum is matching
// a's then b's. It is associative, as micro.Merge is, so the ends can
// follow the partials' reduction tree.
func MergeMessages(a, b []byte) ([]byte, error) {
	if len(a) == 0 {
		return b, nil
	}
	if len(b) == 0 {
		return a, nil
	}
	ma, err := otf2.UnmarshalMessages(a)
	if err != nil {
		return nil, err
	}
	mb, err := otf2.UnmarshalMessages(b)
	if err != nil {
		return nil, err
	}
	ma.Add(mb)
	return ma.MarshalBinary()
}

// MatchMessages makes the partial model of the messages between the
// location groups of the OTF2 archive at path that the parts left
// unmatched: msgs are their encoded ends (BuildMessages, or their sums,
// MergeMessages; nil for none) in the order of the parts, parts the
// parts' partial models (or their merge: only their extent counts), all
// built with opt on the window [start, end]. Merged after the parts'
// (micro.Merge in the plan's order), it makes their model the whole
// archive's, as Local's.
func MatchMessages(path string, msgs [][]byte, opt micro.Options, start, end trace.Time, parts ...*micro.Partial) (*micro.Partial, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("partition: no partial model to match the messages of %s with", path)
	}
	kept := make([]*otf2.Messages, len(msgs))
	for i, data := range msgs {
		if len(data) == 0 {
			continue
		}
		var err error
		if kept[i], err = otf2.UnmarshalMessages(data); err != nil {
			return nil, fmt.Errorf("messages of part %d: %w", i, err)
		}
	}
	return matchMessages(path, kept, opt, start, end, parts)
}

// matchMessages makes the partial model of the messages between the
// location groups of an OTF2 archive that the parts left unmatched (see
// otf2.MatchMessages), on the window of the parts. It forgets msgs'
// ends, which the model no longer needs.
func matchMessages(path string, msgs []*otf2.Messages, opt micro.Options, start, end trace.Time, parts []*micro.Partial) (*micro.Partial, error) {
	acc, err := micro.NewPartialAccumulator(opt, start, end)
	if err != nil {
		return nil, err
	}
	first, last := parts[0].Start, parts[0].End
	for _, p := range parts {
		first, last = min(first, p.Start), max(last, p.End)
	}
	if err := otf2.MatchMessages(path, msgs, acc, first, last, trace.ReadOptions{}); err != nil {
		return nil, err
	}
	clear(msgs)
	return acc.Partial()
}
