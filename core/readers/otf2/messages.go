package otf2

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The location groups of an archive read apart (readGroups) leave the
// messages between groups unmatched: the sends of a message key (sender,
// receiver, communicator, tag) are all on the sender's location, its
// receives all on the receiver's, so a part holds one side only. A sink
// that keeps them (ingest.EndsKeeper) gets them at the end of the part's
// read instead of their being counted as skipped; matchMessages then pairs
// those of all the parts as the read of the whole archive does (the i-th
// send of a key with its i-th receive) into links, and reports the ends
// left over as unmatched, so that the parts and the matched messages add
// up to the whole archive. Memory holds the ends of the messages between
// parts until then: 40 bytes each. The parts may be read in other
// processes: their messages then travel encoded (MarshalBinary, about 10
// bytes an end), and those of consecutive parts add up (Add) before they
// are matched.

// messages are the message ends a read of some location groups left
// unmatched, by message key: the sends of a key, then its receives, each
// in the order of the parts and, within a part, of the records. They are
// the ends (ingest.Ends) of the archive's parts (Format.Parts).
type messages struct {
	ends map[messageKey]*keyEnds
}

// keyEnds are the unmatched sends and receives of one message key. A
// read leaves one side only (it matches what it has of both); parts added
// up (Add) may hold both, to be matched by matchMessages.
type keyEnds struct {
	sends, recvs []messageEnd
}

// keptMessages are the messages a simulator's read left pending.
func keptMessages(pending map[messageKey]*messageQueue) *messages {
	m := &messages{ends: make(map[messageKey]*keyEnds, len(pending))}
	for k, q := range pending {
		if q.sends {
			m.ends[k] = &keyEnds{sends: q.ends}
		} else {
			m.ends[k] = &keyEnds{recvs: q.ends}
		}
	}
	return m
}

// Len is the number of message ends.
func (m *messages) Len() int {
	n := 0
	if m != nil {
		for _, e := range m.ends {
			n += len(e.sends) + len(e.recvs)
		}
	}
	return n
}

// Add appends the ends of later, those of a later part of the archive, to
// m's: matching m then is matching m and later, in that order (the ends
// of a key pair in order, so Add is associative, not commutative). later
// must not be used after.
func (m *messages) Add(later ingest.Ends) {
	if later == nil {
		return
	}
	o := later.(*messages) // the parts of an archive leave messages
	if o == nil {
		return
	}
	if m.ends == nil {
		m.ends = map[messageKey]*keyEnds{}
	}
	for k, e := range o.ends {
		if mine := m.ends[k]; mine != nil {
			mine.sends = append(mine.sends, e.sends...)
			mine.recvs = append(mine.recvs, e.recvs...)
		} else {
			m.ends[k] = e
		}
	}
}

// sortedKeys returns the keys of the parts' messages, each once, sorted:
// the order the links and lost ends come in is the same whatever the
// maps'.
func sortedKeys(parts []*messages) []messageKey {
	var keys []messageKey
	seen := map[messageKey]bool{}
	for _, p := range parts {
		if p == nil {
			continue
		}
		for k := range p.ends {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	slices.SortFunc(keys, compareKeys)
	return keys
}

func compareKeys(a, b messageKey) int {
	return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to), cmp.Compare(a.comm, b.comm), cmp.Compare(a.tag, b.tag))
}

// pairEnds is matchMessages for the ends of the archive's parts as
// package ingest holds them (Parts.PairEnds).
func pairEnds(path string, parts []ingest.Ends, sink trace.Sink, start, end trace.Time, opt trace.ReadOptions) error {
	msgs := make([]*messages, len(parts))
	for i, p := range parts {
		if p == nil {
			continue
		}
		m, ok := p.(*messages)
		if !ok {
			return fmt.Errorf("otf2: the ends of part %d are not the messages of an archive (%T)", i, p)
		}
		msgs[i] = m
	}
	return matchMessages(path, msgs, sink, start, end, opt)
}

// matchMessages pairs the message ends the reads of the location groups
// of the archive at path left (parts, in the order of the groups, or
// added up with Add; nil entries are skipped) and delivers to sink what
// the read of the whole archive makes of them: the hierarchy, a link for
// each message matched, an "Unmatched MPI message" event for each end
// left, then Finish(start, end), the extent of the whole trace that the
// caller found. Ends of locations the archive does not define (messages
// of another archive) are a FormatError.
func matchMessages(path string, parts []*messages, sink trace.Sink, start, end trace.Time, opt trace.ReadOptions) error {
	arch, err := open(path, func(uint32) bool { return false }, opt.Held) // the definitions only
	if err != nil {
		return err
	}
	defer arch.release()
	h, err := arch.hierarchy(sink)
	if err != nil {
		return err
	}
	s := newSimulator(arch.anchor, arch.defs, h)
	s.opt = opt
	for _, k := range sortedKeys(parts) {
		if int(k.from) >= len(h.locations) || int(k.to) >= len(h.locations) {
			return &errs.FormatError{File: path, Err: fmt.Errorf("messages from location %d to %d: the archive has %d locations", k.from, k.to, len(h.locations))}
		}
		var sends, recvs []messageEnd
		for _, p := range parts {
			if p == nil {
				continue
			}
			if e := p.ends[k]; e != nil {
				sends = append(sends, e.sends...)
				recvs = append(recvs, e.recvs...)
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
