package otf2

import (
	"cmp"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The location groups of an archive read apart (ReadGroups) leave the
// messages between groups unmatched: the sends of a message key (sender,
// receiver, communicator, tag) are all on the sender's location, its
// receives all on the receiver's, so a part holds one side only. A sink
// that keeps them (MessageKeeper) gets them at the end of the part's read
// instead of their being counted as skipped; MatchMessages then pairs
// those of all the parts as the read of the whole archive does (the i-th
// send of a key with its i-th receive) into links, and reports the ends
// left over as unmatched, so that the parts and the matched messages add
// up to the whole archive. Memory holds the ends of the messages between
// parts until then: 40 bytes each.

// Messages are the message ends a read of some location groups left
// unmatched, by message key.
type Messages struct {
	pending map[messageKey]*messageQueue
}

// Len is the number of message ends.
func (m *Messages) Len() int {
	n := 0
	if m != nil {
		for _, q := range m.pending {
			n += len(q.ends)
		}
	}
	return n
}

// MessageKeeper is a sink that keeps the message ends a read of some
// location groups (ReadGroups) leaves unmatched: KeepMessages is called
// once, before Finish.
type MessageKeeper interface {
	trace.Sink
	KeepMessages(*Messages)
}

// MatchMessages pairs the message ends the reads of the location groups
// of the archive at path left (parts, in the order of the groups; nil
// entries are skipped) and delivers to sink what the read of the whole
// archive makes of them: the hierarchy, a link for each message matched,
// an "Unmatched MPI message" event for each end left, then Finish(start,
// end), the extent of the whole trace that the caller found.
func MatchMessages(path string, parts []*Messages, sink trace.Sink, start, end trace.Time, opt trace.ReadOptions) error {
	arch, err := open(path, func(uint32) bool { return false }) // the definitions only
	if err != nil {
		return err
	}
	h, err := arch.hierarchy(sink)
	if err != nil {
		return err
	}
	s := newSimulator(arch.anchor, arch.defs, h)
	s.opt = opt
	var keys []messageKey
	seen := map[messageKey]bool{}
	for _, p := range parts {
		if p == nil {
			continue
		}
		for k := range p.pending {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	slices.SortFunc(keys, func(a, b messageKey) int {
		return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to), cmp.Compare(a.comm, b.comm), cmp.Compare(a.tag, b.tag))
	})
	for _, k := range keys {
		var sends, recvs []messageEnd
		for _, p := range parts {
			if q := p.queue(k); q != nil && q.sends {
				sends = append(sends, q.ends...)
			} else if q != nil {
				recvs = append(recvs, q.ends...)
			}
		}
		if _, err := s.comm(k.comm); err != nil {
			return err
		}
		n := min(len(sends), len(recvs))
		for i := range n {
			s.link(k, sends[i], recvs[i])
		}
		switch {
		case len(sends) > n:
			s.pending[k] = &messageQueue{sends: true, ends: sends[n:]}
		case len(recvs) > n:
			s.pending[k] = &messageQueue{ends: recvs[n:]}
		}
	}
	// What finish ends the trace with: the extent given.
	s.started, s.first, s.last = true, start, end
	s.finish()
	return nil
}

func (m *Messages) queue(k messageKey) *messageQueue {
	if m == nil {
		return nil
	}
	return m.pending[k]
}
