package otf2

import (
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// expectation is what the trace of an archive should hold, derived from
// otf2-print's output alone: containers, states, links, variable pieces
// and events, each as comparable rows naming containers by alias.
type expectation struct {
	containers []string
	states     []string
	links      []string
	variables  []string
	events     []string
	end        trace.Time
}

// nanos converts ticks to nanoseconds with big integers, independently of
// the reader's 128-bit arithmetic: (ticks - offset) * 1e9 / resolution,
// rounded half away from zero.
func nanos(ticks, offset, resolution uint64) trace.Time {
	return trace.Time(nanosExact(ticks, offset, resolution).Int64())
}

func nanosExact(ticks, offset, resolution uint64) *big.Int {
	num := new(big.Int).Sub(new(big.Int).SetUint64(ticks), new(big.Int).SetUint64(offset))
	num.Mul(num, big.NewInt(1e9))
	neg := num.Sign() < 0
	num.Abs(num)
	res := new(big.Int).SetUint64(resolution)
	q, m := new(big.Int).QuoRem(num, res, new(big.Int))
	if m.Lsh(m, 1).Cmp(res) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if neg {
		q.Neg(q)
	}
	return q
}

var (
	reClock     = regexp.MustCompile(`Ticks per Seconds: (\d+), Global Offset: (\d+), Length: (\d+)`)
	reNode      = regexp.MustCompile(`^SYSTEM_TREE_NODE\s+(\d+)\s+Name: "(.*?)" <\d+>, Class: "(.*?)" <\d+>, Parent: (?:UNDEFINED|".*" <(\d+)>)$`)
	reLGroup    = regexp.MustCompile(`^LOCATION_GROUP\s+(\d+)\s+Name: "(.*?)" <\d+>, Type: (\w+), Parent: (?:UNDEFINED|".*?" <(\d+)>)`)
	reLocation  = regexp.MustCompile(`^LOCATION\s+(\d+)\s+Name: "(.*?)" <\d+>, Type: (\w+), # Events: \d+, Group: ".*" <(\d+)>$`)
	reInstance  = regexp.MustCompile(`^METRIC_INSTANCE\s+(\d+)\s+Class: \d+, Recorder: ".*" <\d+>, Scope: (\w+) ".*" <(\d+)>$`)
	reCommName  = regexp.MustCompile(`Communicator: "(.*?)" <(\d+)>`)
	rePeerLoc   = regexp.MustCompile(`^(?:Receiver|Sender): \d+ \(".*?" <(\d+)>\)`)
	reValueName = regexp.MustCompile(`\("(.*?)" <\d+>; \w+; ([-\d.e+]+)\)`)
)

var printedTypes = map[string]string{
	"PROCESS": "process", "ACCELERATOR": "accelerator",
	"CPU_THREAD": "thread", "ACCELERATOR_STREAM": "accelerator stream", "METRIC": "metric",
}

var scopePrefix = map[string]string{
	"LOCATION": "location:", "LOCATION_GROUP": "locationgroup:", "SYSTEM_TREE_NODE": "systemtreenode:",
}

// expect derives the expected trace of an archive from otf2-print.
func expect(t *testing.T, anchor string) expectation {
	defs := printedDefinitions(t, anchor)
	var e expectation
	m := reClock.FindStringSubmatch(defs["CLOCK_PROPERTIES"][0])
	res, offset, length := atoi(m[1]), atoi(m[2]), atoi(m[3])
	ns := func(ticks uint64) trace.Time { return nanos(ticks, offset, res) }

	// Containers: alias, name, type name, parent alias.
	for _, line := range defs["SYSTEM_TREE_NODE"] {
		m := reNode.FindStringSubmatch(line)
		parent := "root"
		if m[4] != "" {
			parent = "systemtreenode:" + m[4]
		}
		name := m[2]
		if name == "" {
			name = "systemtreenode:" + m[1]
		}
		e.containers = append(e.containers, fmt.Sprintf("systemtreenode:%s %q %q in %s", m[1], name, m[3], parent))
	}
	for _, line := range defs["LOCATION_GROUP"] {
		m := reLGroup.FindStringSubmatch(line)
		name := m[2]
		if name == "" {
			name = "locationgroup:" + m[1]
		}
		e.containers = append(e.containers, fmt.Sprintf("locationgroup:%s %q %q in systemtreenode:%s", m[1], name, printedTypes[m[3]], m[4]))
	}
	for _, line := range defs["LOCATION"] {
		m := reLocation.FindStringSubmatch(line)
		name := m[2]
		if name == "" {
			name = "location:" + m[1]
		}
		e.containers = append(e.containers, fmt.Sprintf("location:%s %q %q in locationgroup:%s", m[1], name, printedTypes[m[3]], m[4]))
	}
	scopes := map[string]string{} // metric instance -> container alias
	for _, line := range defs["METRIC_INSTANCE"] {
		if m := reInstance.FindStringSubmatch(line); m != nil && scopePrefix[m[2]] != "" {
			scopes[m[1]] = scopePrefix[m[2]] + m[3]
		}
	}

	events := printedEvents(t, anchor)
	e.end = max(ns(offset+length), ns(events[len(events)-1].ticks))

	type open struct {
		name  string
		start trace.Time
		order int
	}
	stacks := map[uint64][]open{}
	begun := map[uint64]int{}
	type end struct {
		time trace.Time
		size string
	}
	pending := map[string][]end{} // sends (or receives) waiting for their other end
	type piece struct {
		value string
		start trace.Time
	}
	series := map[string]*piece{}
	var seriesOrder []string
	for _, ev := range events {
		loc := fmt.Sprintf("location:%d", ev.loc)
		tm := ns(ev.ticks)
		switch ev.name {
		case "ENTER":
			name := reQuoted.FindStringSubmatch(ev.attrs)[1]
			stacks[ev.loc] = append(stacks[ev.loc], open{name, tm, begun[ev.loc]})
			begun[ev.loc]++
		case "LEAVE":
			s := stacks[ev.loc]
			o := s[len(s)-1]
			e.states = append(e.states, fmt.Sprintf("%s %q %v-%v depth %d order %d", loc, o.name, o.start, tm, len(s)-1, o.order))
			stacks[ev.loc] = s[:len(s)-1]
		case "MPI_SEND", "MPI_ISEND", "MPI_RECV", "MPI_IRECV":
			peer := "location:" + rePeerLoc.FindStringSubmatch(ev.attrs)[1]
			comm := reCommName.FindStringSubmatch(ev.attrs)
			tag := regexp.MustCompile(`Tag: (\d+)`).FindStringSubmatch(ev.attrs)[1]
			size := regexp.MustCompile(`Length: (\d+)`).FindStringSubmatch(ev.attrs)[1]
			send := strings.Contains(ev.name, "SEND")
			from, to := loc, peer
			if !send {
				from, to = peer, loc
			}
			key := fmt.Sprintf("%s->%s comm %s tag %s", from, to, comm[2], tag)
			side := key + map[bool]string{true: " send", false: " recv"}[send]
			other := key + map[bool]string{true: " recv", false: " send"}[send]
			if q := pending[other]; len(q) > 0 {
				o := q[0]
				pending[other] = q[1:]
				s, r := o, end{tm, size}
				if send {
					s, r = r, o
				}
				e.links = append(e.links, fmt.Sprintf("%s %v-%v size %s value %q key %s", key, s.time, r.time, number(s.size), comm[1], tag))
			} else {
				pending[side] = append(pending[side], end{tm, size})
			}
		case "METRIC":
			id := reMetric.FindStringSubmatch(ev.attrs)[1]
			where := loc
			if s, ok := scopes[id]; ok {
				where = s
			}
			for _, v := range reValueName.FindAllStringSubmatch(ev.attrs, -1) {
				k := fmt.Sprintf("%s %q", where, v[1])
				if p := series[k]; p != nil {
					e.variables = append(e.variables, fmt.Sprintf("%s %v-%v = %s", k, p.start, tm, p.value))
				} else {
					seriesOrder = append(seriesOrder, k)
				}
				series[k] = &piece{number(v[2]), tm}
			}
		case "MPI_COLLECTIVE_END":
			op := reCollective.FindStringSubmatch(ev.attrs)[1]
			e.events = append(e.events, fmt.Sprintf("%s %q %q at %v", loc, "MPI collective", op, tm))
		case "PROGRAM_BEGIN", "PROGRAM_END":
			name := map[string]string{"PROGRAM_BEGIN": "ProgramBegin", "PROGRAM_END": "ProgramEnd"}[ev.name]
			e.events = append(e.events, fmt.Sprintf("%s %q %q at %v", loc, "Program", name, tm))
		case "MEASUREMENT_ON_OFF":
			mode := "MeasurementOff"
			if strings.Contains(ev.attrs, "Mode: ON") {
				mode = "MeasurementOn"
			}
			e.events = append(e.events, fmt.Sprintf("%s %q %q at %v", loc, "Measurement", mode, tm))
		case "PARAMETER_STRING", "PARAMETER_INT64", "PARAMETER_UINT64":
			name := reQuoted.FindStringSubmatch(ev.attrs)[1]
			e.events = append(e.events, fmt.Sprintf("%s %q %q at %v", loc, "Parameter", name, tm))
		case "MPI_IRECV_REQUEST", "MPI_ISEND_COMPLETE", "MPI_REQUEST_TEST", "MPI_REQUEST_CANCELLED", "MPI_COLLECTIVE_BEGIN":
		default:
			t.Fatalf("no expectation for %s records: extend the test", ev.name)
		}
	}
	for loc, s := range stacks {
		for d := len(s) - 1; d >= 0; d-- {
			e.states = append(e.states, fmt.Sprintf("location:%d %q %v-%v depth %d order %d", loc, s[d].name, s[d].start, e.end, d, s[d].order))
		}
	}
	for _, k := range seriesOrder {
		e.variables = append(e.variables, fmt.Sprintf("%s %v-%v = %s", k, series[k].start, e.end, series[k].value))
	}
	for k, q := range pending {
		if len(q) > 0 {
			t.Fatalf("otf2-print lists unmatched messages %s: extend the test", k)
		}
	}
	return e
}

// number renders a decimal number the way rows renders float64 values.
func number(s string) string {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic(err)
	}
	return fmt.Sprint(v)
}

// rows renders the trace the same way as expect.
func rows(tr *trace.Trace) expectation {
	var e expectation
	alias := func(c int32) string { return tr.Containers[c].Alias }
	for _, c := range tr.Containers[1:] {
		parent := "root"
		if c.Parent > 0 {
			parent = alias(c.Parent)
		}
		e.containers = append(e.containers, fmt.Sprintf("%s %q %q in %s", c.Alias, c.Name, tr.Types[c.Type].Name, parent))
	}
	for _, s := range tr.States.All() {
		e.states = append(e.states, fmt.Sprintf("%s %q %v-%v depth %d order %d", alias(s.Container), tr.Values[s.Value].Name, s.Start, s.End, s.Depth, s.Order))
	}
	for _, l := range tr.Links.All() {
		e.links = append(e.links, fmt.Sprintf("%s->%s comm %s tag %s %v-%v size %v value %q key %s",
			alias(l.From), alias(l.To), "?", l.Key, l.Start, l.End, l.Size, tr.Values[l.Value].Name, l.Key))
	}
	for _, v := range tr.Variables.All() {
		e.variables = append(e.variables, fmt.Sprintf("%s %q %v-%v = %v", alias(v.Container), tr.Types[v.Type].Name, v.Start, v.End, v.Value))
	}
	for _, ev := range tr.Events.All() {
		e.events = append(e.events, fmt.Sprintf("%s %q %q at %v", alias(ev.Container), tr.Types[ev.Type].Name, tr.Values[ev.Value].Name, ev.Time))
	}
	e.end = tr.End
	return e
}

// TestTraceMatchesOTF2Print reads every archive and compares the trace,
// entity by entity, with what otf2-print's listing implies.
func TestTraceMatchesOTF2Print(t *testing.T) {
	for _, name := range archives {
		t.Run(name, func(t *testing.T) {
			anchor := archivePath(t, name)
			want := expect(t, anchor)
			tr, err := readFile(anchor)
			if err != nil {
				t.Fatal(err)
			}
			got := rows(tr)
			if tr.Start != 0 || got.end != want.end {
				t.Errorf("trace spans %v-%v, want 0-%v", tr.Start, got.end, want.end)
			}
			for _, s := range tr.States.All() {
				if tr.Types[s.Type].Name != regionType {
					t.Fatalf("state of type %q", tr.Types[s.Type].Name)
				}
			}
			// Links are compared without the communicator ID, which the
			// trace model does not keep (its name is the link's value).
			for i, l := range want.links {
				want.links[i] = regexp.MustCompile(` comm \d+ `).ReplaceAllString(l, " comm ? ")
			}
			for _, c := range []struct {
				what      string
				got, want []string
			}{
				{"containers", got.containers, want.containers},
				{"states", got.states, want.states},
				{"links", got.links, want.links},
				{"variables", got.variables, want.variables},
				{"events", got.events, want.events},
			} {
				sameRows(t, c.what, c.got, c.want)
			}
		})
	}
}

// sameRows compares two lists of rows as multisets.
func sameRows(t *testing.T, what string, got, want []string) {
	t.Helper()
	got, want = slices.Clone(got), slices.Clone(want)
	slices.Sort(got)
	slices.Sort(want)
	if slices.Equal(got, want) {
		return
	}
	if len(got) != len(want) {
		t.Errorf("%s: got %d, want %d", what, len(got), len(want))
	}
	shown := 0
	for i := 0; i < min(len(got), len(want)) && shown < 5; i++ {
		if got[i] != want[i] {
			t.Errorf("%s: got  %s\n       want %s", what, got[i], want[i])
			shown++
		}
	}
}
