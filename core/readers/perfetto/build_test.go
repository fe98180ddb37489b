package perfetto

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"google.golang.org/protobuf/encoding/protowire"
)

// Builders of synthetic traces, encoded with protowire's Append functions
// and the field numbers of Perfetto's .proto files, written out here
// independently of the reader's constants.

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func vint(num protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), v)
}

func str(num protowire.Number, s string) []byte {
	return protowire.AppendString(protowire.AppendTag(nil, num, protowire.BytesType), s)
}

func sub(num protowire.Number, parts ...[]byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), cat(parts...))
}

func fix64(num protowire.Number, v uint64) []byte {
	return protowire.AppendFixed64(protowire.AppendTag(nil, num, protowire.Fixed64Type), v)
}

func dbl(num protowire.Number, f float64) []byte { return fix64(num, math.Float64bits(f)) }

// traceOf frames packets as a Trace message (field 1 each).
func traceOf(packets ...[]byte) []byte {
	var out []byte
	for _, p := range packets {
		out = protowire.AppendBytes(protowire.AppendTag(out, 1, protowire.BytesType), p)
	}
	return out
}

// TracePacket fields.
func ts(t uint64) []byte         { return vint(8, t) }
func clockID(id uint64) []byte   { return vint(58, id) }
func seqID(id uint64) []byte     { return vint(10, id) }
func flags(f uint64) []byte      { return vint(13, f) }
func dropped() []byte            { return vint(42, 1) }
func pkt(parts ...[]byte) []byte { return cat(parts...) }

const (
	cleared = 1
	needs   = 2
)

// trackDesc is a TrackDescriptor packet (field 60).
func trackDesc(uuid uint64, parts ...[]byte) []byte {
	return sub(60, append([][]byte{vint(1, uuid)}, parts...)...)
}
func parentUUID(u uint64) []byte { return vint(5, u) }
func trackName(n string) []byte  { return str(2, n) }
func processDesc(pid uint64, name string) []byte {
	return sub(3, vint(1, pid), str(6, name))
}
func threadDesc(pid, tid uint64, name string) []byte {
	return sub(4, vint(1, pid), vint(2, tid), str(5, name))
}
func counterDesc(parts ...[]byte) []byte { return sub(8, parts...) }

// te is a TrackEvent (field 11).
func te(parts ...[]byte) []byte { return sub(11, parts...) }
func evType(t uint64) []byte    { return vint(9, t) }
func onTrack(u uint64) []byte   { return vint(11, u) }
func named(n string) []byte     { return str(23, n) }
func nameIID(i uint64) []byte   { return vint(10, i) }

const (
	begin   = 1
	end     = 2
	instant = 3
	counter = 4
	state   = 5
)

func interned(names map[uint64]string, order ...uint64) []byte {
	var parts [][]byte
	for _, iid := range order {
		parts = append(parts, sub(2, vint(1, iid), str(2, names[iid])))
	}
	return sub(12, parts...)
}

// zlibbed compresses b as compressed_packets holds it.
func zlibbed(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readBytes reads an in-memory trace.
func readBytes(data []byte) (*trace.Trace, *trace.Notes, error) {
	tr := trace.New()
	notes := &trace.Notes{}
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	err := decode(open, "mem.pftrace", int64(len(data)), tr, trace.ReadOptions{Notes: notes})
	return tr, notes, err
}

func mustRead(t *testing.T, data []byte) (*trace.Trace, *trace.Notes) {
	t.Helper()
	tr, notes, err := readBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	return tr, notes
}

// render prints a trace in emission order, one line per entity, with
// container paths, type and value names and times in nanoseconds.
func render(tr *trace.Trace) string {
	var b strings.Builder
	path := func(c int32) string {
		if c == 0 {
			return "/"
		}
		return tr.ContainerPath(c, "/")
	}
	for i, c := range tr.Containers[1:] {
		fmt.Fprintf(&b, "container %s %s alias=%s\n", path(int32(i+1)), tr.Types[c.Type].Name, c.Alias)
	}
	for _, s := range tr.States.All() {
		fmt.Fprintf(&b, "state %s %s %q %d %d d%d o%d\n", path(s.Container), tr.Types[s.Type].Name,
			tr.Values[s.Value].Name, int64(s.Start), int64(s.End), s.Depth, s.Order)
	}
	for _, e := range tr.Events.All() {
		fmt.Fprintf(&b, "event %s %s %q %d\n", path(e.Container), tr.Types[e.Type].Name, tr.Values[e.Value].Name, int64(e.Time))
	}
	for _, v := range tr.Variables.All() {
		fmt.Fprintf(&b, "variable %s %s %d %d %g\n", path(v.Container), tr.Types[v.Type].Name, int64(v.Start), int64(v.End), v.Value)
	}
	for _, l := range tr.Links.All() {
		fmt.Fprintf(&b, "link %s %q %s -> %s %d %d key=%s\n", tr.Types[l.Type].Name, tr.Values[l.Value].Name,
			path(l.From), path(l.To), int64(l.Start), int64(l.End), l.Key)
	}
	fmt.Fprintf(&b, "span %d %d\n", int64(tr.Start), int64(tr.End))
	return b.String()
}

// checkRender compares render's output with want (leading tabs and blank
// lines of the literal removed).
func checkRender(t *testing.T, tr *trace.Trace, want string) {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(want, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	w := strings.Join(lines, "\n") + "\n"
	if got := render(tr); got != w {
		t.Errorf("got:\n%s\nwant:\n%s", got, w)
	}
}

// checkNotes compares the notes with want, one message a line.
func checkNotes(t *testing.T, notes *trace.Notes, want ...string) {
	t.Helper()
	got := notes.Messages()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// checkTypes verifies the types' parents: every state, event and variable
// type's parent is the type of the containers holding it.
func checkTypes(t *testing.T, tr *trace.Trace) {
	t.Helper()
	for _, s := range tr.States.All() {
		if tr.Types[s.Type].Parent != tr.Containers[s.Container].Type {
			t.Errorf("state type %s on a container of another type", tr.Types[s.Type].Name)
		}
	}
	for _, e := range tr.Events.All() {
		if tr.Types[e.Type].Parent != tr.Containers[e.Container].Type {
			t.Errorf("event type %s on a container of another type", tr.Types[e.Type].Name)
		}
	}
	for _, v := range tr.Variables.All() {
		if tr.Types[v.Type].Parent != tr.Containers[v.Container].Type {
			t.Errorf("variable type %s on a container of another type", tr.Types[v.Type].Name)
		}
	}
	for _, l := range tr.Links.All() {
		ty := tr.Types[l.Type]
		if ty.Start != tr.Containers[l.From].Type || ty.End != tr.Containers[l.To].Type {
			t.Errorf("link type %s between containers of other types", ty.Name)
		}
	}
	for i, c := range tr.Containers[1:] {
		if p := tr.Containers[c.Parent].Type; tr.Types[c.Type].Parent != p {
			t.Errorf("container %d: its type's parent is not its parent's type", i+1)
		}
	}
}

func protowireNumber(n int) protowire.Number { return protowire.Number(n) }
