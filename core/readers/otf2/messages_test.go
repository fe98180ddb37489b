package otf2

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// keepTrace is a trace in memory that keeps the unmatched messages.
type keepTrace struct {
	*trace.Trace
	msgs *messages
}

func (k *keepTrace) KeepEnds(e ingest.Ends) { k.msgs = e.(*messages) }

// crossGroupArchive writes an archive of two location groups of a
// location each, with messages between them: matched, never received,
// never sent, and within a group.
func crossGroupArchive(t *testing.T) string {
	t.Helper()
	l0, l1 := &enc{}, &enc{}
	evTime(l0, 1010)
	evP2P(l0, evMpiSend, 1, commWorld, 7, 8)  // received at 1005 by location 1
	evP2P(l0, evMpiSend, 1, commWorld, 7, 9)  // never received
	evP2P(l0, evMpiIsend, 1, commWorld, 5, 2) // received at 1007
	evTime(l0, 1020)
	evP2P(l0, evMpiSend, 0, commSelf, 1, 16) // within the group
	evTime(l0, 1021)
	evP2P(l0, evMpiRecv, 0, commSelf, 1, 16)
	evTime(l1, 1005)
	evP2P(l1, evMpiRecv, 0, commWorld, 7, 8)
	evTime(l1, 1006)
	evP2P(l1, evMpiRecv, 0, commWorld, 3, 4) // never sent
	evTime(l1, 1007)
	evP2P(l1, evMpiIrecv, 0, commWorld, 5, 2)
	return testArchive{defs: baseDefs(false).b, locations: map[uint64][]byte{
		0: chunked(false, 0, l0.b), 1: chunked(false, 0, l1.b),
	}}.write(t, t.TempDir())
}

// readKept reads each location group of the archive apart: the
// description of each part's trace, and the messages it kept.
func readKept(t *testing.T, anchor string) ([]string, []*messages) {
	t.Helper()
	var got []string
	var parts []*messages
	for _, g := range []uint32{0, 1} {
		part := &keepTrace{Trace: trace.New(anchor)}
		notes := &trace.Notes{}
		if err := readGroups(anchor, []uint32{g}, part, trace.ReadOptions{Notes: notes}); err != nil {
			t.Fatal(err)
		}
		if len(notes.Skipped()) > 0 {
			t.Errorf("group %d: skipped %v", g, notes.Skipped())
		}
		got = append(got, describe(part.Trace)...)
		parts = append(parts, part.msgs)
	}
	return got, parts
}

// The location groups read apart, then their messages matched, give the
// links and unmatched ends of the whole read, none skipped.
func TestMessagesAcrossGroups(t *testing.T) {
	anchor := crossGroupArchive(t)
	whole := trace.New(anchor)
	if err := Read(anchor, whole, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	got, parts := readKept(t, anchor)
	if parts[0].Len() != 3 || parts[1].Len() != 3 {
		t.Errorf("%d and %d message ends left, want 3 (the sends to group 1) and 3 (the receives from group 0)", parts[0].Len(), parts[1].Len())
	}
	matched := trace.New(anchor)
	if err := matchMessages(anchor, parts, matched, whole.Start, whole.End, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	got = append(got, describe(matched)...)
	want := describe(whole)
	slices.Sort(got)
	slices.Sort(want)
	sameList(t, got, want)
	if matched.Links.Len() != 2 || matched.Events.Len() != 2 || matched.Start != whole.Start || matched.End != whole.End {
		t.Errorf("matched: %d links, %d events, [%d, %d]; want 2, 2, [%d, %d]",
			matched.Links.Len(), matched.Events.Len(), matched.Start, matched.End, whole.Start, whole.End)
	}
}

// The messages of the parts, encoded, decoded and added up as a cluster
// does, match into what the parts' own messages match into.
func TestMessagesEncodedAndAdded(t *testing.T) {
	anchor := crossGroupArchive(t)
	_, parts := readKept(t, anchor)
	want := trace.New(anchor)
	if err := matchMessages(anchor, parts, want, 0, 1021, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	var sum *messages
	for i, p := range parts {
		data, err := p.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		back, err := unmarshalMessages(data)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back.ends, p.ends) {
			t.Errorf("part %d: decoded %v, want %v", i, back.ends, p.ends)
		}
		// 8 bytes of header, a key count, and per key 6 numbers and the
		// ends: at most 13 bytes each here (a 1-byte time, size, offset).
		if len(data) > 8+1+3*6+3*3 {
			t.Errorf("part %d: %d bytes for %d ends", i, len(data), p.Len())
		}
		if sum == nil {
			sum = back
		} else {
			sum.Add(back)
		}
	}
	if sum.Len() != 6 {
		t.Errorf("%d ends added up, want 6", sum.Len())
	}
	got := trace.New(anchor)
	if err := matchMessages(anchor, []*messages{sum}, got, 0, 1021, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	sameList(t, describe(got), describe(want))
}

// The bytes of a small set of messages, counted by hand.
func TestMessagesEncoding(t *testing.T) {
	m := &messages{ends: map[messageKey]*keyEnds{
		{from: 2, to: 1, comm: 0, tag: 300}: {recvs: []messageEnd{{time: -1, size: 4, loc: 1, offset: 64}}},
		{from: 0, to: 1, comm: 0, tag: 7}: {sends: []messageEnd{
			{time: 10, size: 8, loc: 0, offset: 100}, {time: 12, size: 9, loc: 0, offset: 130}}},
		{from: 0, to: 2, comm: 1, tag: 0}: {}, // no ends: not encoded
	}}
	data, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	want := []byte("OTF2MSG\x01")
	want = append(want, 2,
		0, 1, 0, 7, 2, 0, // key (0, 1, 0, 7): 2 sends
		20, 8, 0xc8, 0x01, // time 10 (zigzag 20), size 8, offset 100 (zigzag 200)
		4, 9, 60, // time +2, size 9, offset +30
		2, 1, 0, 0xac, 0x02, 0, 1, // key (2, 1, 0, 300): 1 receive
		1, 4, 0x80, 0x01) // time -1 (zigzag 1), size 4, offset 64 (zigzag 128)
	if !bytes.Equal(data, want) {
		t.Fatalf("encoded\n%v, want\n%v", data, want)
	}
	if m.Len() != 3 {
		t.Errorf("%d ends, want 3", m.Len())
	}
	back, err := unmarshalMessages(data)
	if err != nil {
		t.Fatal(err)
	}
	delete(m.ends, messageKey{from: 0, to: 2, comm: 1, tag: 0})
	if !reflect.DeepEqual(back.ends, m.ends) {
		t.Errorf("decoded %v, want %v", back.ends, m.ends)
	}
	// Nothing to match encodes as a header and no key.
	empty, _ := (*messages)(nil).MarshalBinary()
	if got, err := unmarshalMessages(empty); err != nil || got.Len() != 0 || string(empty) != "OTF2MSG\x01\x00" {
		t.Errorf("empty: %q decodes to %v, %v", empty, got, err)
	}
}

// Bad input is a FormatError at the byte that fails, never a panic.
func TestMessagesDecodingErrors(t *testing.T) {
	m := &messages{ends: map[messageKey]*keyEnds{
		{from: 0, to: 1, comm: 0, tag: 7}: {sends: []messageEnd{{time: 10, size: 8, offset: 100}}},
		{from: 1, to: 0, comm: 0, tag: 7}: {recvs: []messageEnd{{time: 11, size: 8, offset: 90}}},
	}}
	good, _ := m.MarshalBinary()
	// good: header (8), 2 keys (at 8), key (0, 1, 0, 7) at 9, its 1 send
	// at 15, key (1, 0, 0, 7) at 19, its receive at 25, 29 bytes.
	if len(good) != 29 {
		t.Fatalf("%d bytes: %v", len(good), good)
	}
	with := func(at int, b ...byte) []byte {
		out := slices.Clone(good)
		copy(out[at:], b)
		return out
	}
	for _, tc := range []struct {
		name   string
		data   []byte
		offset int64
		err    string
	}{
		{"empty", nil, 0, "not encoded OTF2 messages"},
		{"another header", with(0, 'X'), 0, "not encoded OTF2 messages"},
		{"cut in a key", good[:12], 12, "tag: cut short"},
		{"cut in an end", good[:17], 17, "record offset: cut short"},
		{"cut before the last key", good[:19], 19, "sender: cut short"},
		{"keys out of order", with(19, 0, 1, 0, 7), 19, "message key (0, 1, 0, 7) out of order"},
		{"a key without ends", with(19, 1, 0, 0, 7, 0, 0), 19, "without ends"},
		{"more ends than bytes", with(13, 6), 13, "number of sends 6: more than 5"},
		{"a sender beyond int32", append(slices.Clone(good[:9]), 0x80, 0x80, 0x80, 0x80, 0x08), 9, "sender 2147483648: more than 2147483647"},
		{"a varint beyond 64 bits", append(slices.Clone(good[:8]), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), 8, "overflows 64 bits"},
		{"trailing bytes", append(slices.Clone(good), 0, 0), 29, "2 bytes after the last message key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := unmarshalMessages(tc.data)
			var fe *errs.FormatError
			if !errors.As(err, &fe) || fe.Offset != tc.offset || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want a FormatError at byte %d saying %q", err, tc.offset, tc.err)
			}
		})
	}
	// Every prefix of a valid encoding is an error, not a panic.
	for n := range len(good) {
		if _, err := unmarshalMessages(good[:n]); err == nil {
			t.Errorf("%d bytes of %d decoded", n, len(good))
		}
	}
}

// Messages of another archive, whose locations this one lacks, are an
// error, not a panic.
func TestMatchMessagesOtherArchive(t *testing.T) {
	anchor := crossGroupArchive(t)
	m := &messages{ends: map[messageKey]*keyEnds{
		{from: 0, to: 5, comm: 0, tag: 7}: {sends: []messageEnd{{time: 10, size: 8}}},
	}}
	err := matchMessages(anchor, []*messages{m}, trace.New(anchor), 0, 100, trace.ReadOptions{})
	var fe *errs.FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "from location 0 to 5: the archive has 2 locations") {
		t.Fatalf("error %v", err)
	}
}

// Instances on the machine (a system tree node) recorded in two groups
// make an archive inseparable, in one group not; the corpus archives'
// groups add up (the MI300 run: instances on the node, all recorded in
// the process).
func TestSeparable(t *testing.T) {
	check := func(what string, defs *enc, want bool) {
		t.Helper()
		anchor := testArchive{defs: defs.b, locations: map[uint64][]byte{}}.write(t, t.TempDir())
		if ok, err := separable(anchor); err != nil || ok != want {
			t.Errorf("%s: separable %v, %v; want %v", what, ok, err, want)
		}
	}
	check("no metric", baseDefs(false), true)
	check("an instance on the machine", metricDefs(), true)
	two := metricDefs()
	two.rec(defMetricInstance, false, func(r *enc) { r.u32(2).u32(0).u64(1).u8(scopeSystemTreeNode).u64(0) })
	check("instances on the machine from two groups", two, false)
	other := metricDefs()
	other.rec(defMetricInstance, false, func(r *enc) { r.u32(2).u32(0).u64(1).u8(scopeLocation).u64(0) })
	check("an instance on a location of another group", other, false)
	for _, p := range []string{
		"tracer-stencil4d/stencil4d-otf/traces-64",
		"pipit/tests/data/ping-pong-otf2-papi",
		"fastotf2/sample-traces/simple-mi300-example-run",
	} {
		ok, err := separable(archivePath(t, p))
		if err != nil || !ok {
			t.Errorf("%s: separable %v, %v", p, ok, err)
		}
	}
}
