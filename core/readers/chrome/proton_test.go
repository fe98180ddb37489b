package chrome

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// protonLines writes a trace as Triton's Proton does (TraceData's
// dumpKernelMetricTrace): one object per GPU stream, one per line, each
// event without pid, its tid the stream, times in microseconds from the
// first kernel of all streams.
func protonLines(streams map[int][][3]any) string {
	var b strings.Builder
	for _, s := range []int{7, 13, 14} {
		kernels, ok := streams[s]
		if !ok {
			continue
		}
		b.WriteString(`{"displayTimeUnit":"us","traceEvents":[`)
		for i, k := range kernels {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"args":{"call_stack":["ROOT","test",%q]},"cat":"kernel","dur":%v,"name":%q,"ph":"X","tid":%d,"ts":%v}`,
				k[0], k[2], k[0], s, k[1])
		}
		b.WriteString("]}\n")
	}
	return b.String()
}

// TestProtonTraceObjects: a file of trace objects one after the other
// (Proton's .chrome_trace of several streams, which its own tests read
// line by line) was refused at the second ("unexpected '{' after the end
// of the trace"); each object's events are read, at the times it gives.
func TestProtonTraceObjects(t *testing.T) {
	in := protonLines(map[int][][3]any{
		7:  {{"matmul_kernel", 0.0, 12.5}, {"add_kernel", 13.0, 2.25}},
		13: {{"_attn_fwd", 1.0, 40.0}},
	})
	tr, notes := decodeNotes(t, in)
	checkLines(t, "entities", dump(tr), []string{
		`state /0/7 Slice matmul_kernel[kernel] 0.000-12.500 d0 {"call_stack":["ROOT","test","matmul_kernel"]}`,
		`state /0/7 Slice add_kernel[kernel] 13.000-15.250 d0 {"call_stack":["ROOT","test","add_kernel"]}`,
		`state /0/13 Slice _attn_fwd[kernel] 1.000-41.000 d0 {"call_stack":["ROOT","test","_attn_fwd"]}`,
	})
	msgs := notes.Messages()
	if !slices.ContainsFunc(msgs, func(m string) bool {
		return strings.HasPrefix(m, "1 more trace objects follow the first") && strings.Contains(m, "Proton")
	}) {
		t.Errorf("notes %q: want the second object told", msgs)
	}
	// Something other than an object after a trace object is still refused.
	fe := decodeError(t, []byte(`{"traceEvents":[`+okEvent+`]} [`))
	if !strings.Contains(fe.Err.Error(), "unexpected '[' after the end of the trace") {
		t.Errorf("error %q", fe.Err.Error())
	}
	// A second object that is no trace is refused as one.
	fe = decodeError(t, []byte(`{"traceEvents":[`+okEvent+`]}`+"\n"+`{"displayTimeUnit":"us"}`))
	if !strings.Contains(fe.Err.Error(), "no traceEvents array") || fe.Line != 2 {
		t.Errorf("error %q at line %d", fe.Err.Error(), fe.Line)
	}
}

// TestProtonTraceObjectsParallel: objects long enough to be read on all
// cores give what the same events in one object give, whatever the parts.
func TestProtonTraceObjectsParallel(t *testing.T) {
	streams := map[int][][3]any{}
	var events []string
	for _, s := range []int{7, 13, 14} {
		for i := range 3000 {
			name := fmt.Sprintf("kernel_%d", i%17)
			ts, dur := float64(i)*10.5+float64(s), 4.25
			streams[s] = append(streams[s], [3]any{name, ts, dur})
			events = append(events, fmt.Sprintf(`{"args":{"call_stack":["ROOT","test",%q]},"cat":"kernel","dur":%v,"name":%q,"ph":"X","tid":%d,"ts":%v}`,
				name, dur, name, s, ts))
		}
	}
	lines := []byte(protonLines(streams))
	one := []byte(`{"displayTimeUnit":"us","traceEvents":[` + strings.Join(events, ",") + "]}\n")
	want := readWith(one, true, 1<<20, 1)
	if want.err != nil || want.tr.States.Len() != 9000 {
		t.Fatalf("one object: %v, %d states", want.err, want.tr.States.Len())
	}
	for _, c := range []struct{ size, n int }{{1 << 20, 1}, {4 << 10, 2}, {1 << 10, 8}, {333, 3}} {
		got := readWith(lines, true, c.size, c.n)
		if got.err != nil {
			t.Fatalf("parts %d×%d: %v", c.size, c.n, got.err)
		}
		if g, w := dump(got.tr), dump(want.tr); !slices.Equal(g, w) {
			t.Errorf("parts %d×%d: %d entities, want %d as in one object", c.size, c.n, len(g), len(w))
		}
		if !slices.ContainsFunc(got.notes, func(m string) bool { return strings.HasPrefix(m, "2 more trace objects") }) {
			t.Errorf("parts %d×%d: notes %q", c.size, c.n, got.notes)
		}
	}
}
