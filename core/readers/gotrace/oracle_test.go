package gotrace

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The oracle is the Go toolchain's own parser: `go tool trace -d=parsed`
// prints every event the runtime's internal/trace package reads, one
// "M=.. P=.. G=.. Kind Time=.. ..." line each. The facts below are
// computed from that text, by a walk of its own, and compared with what
// the reader delivered.

// facts are the entities of a trace as sorted lines of text, one per
// entity, so that two sources compare exactly.
type facts struct {
	goStates, pStates, regions, links, ranges, variables []string
	logs                                                 []string // logs, task beginnings and ends, labels
	pRunning                                             []string // "P<id> span" of each goroutine run
	end                                                  trace.Time
	samples                                              int64 // CPU profile samples, skipped
	// unended says how many user regions were open at the end, and on how
	// many goroutines: "3 on 2", "" for none.
	unended string
}

var (
	lineRE = regexp.MustCompile(`^M=(-?\d+) P=(-?\d+) G=(-?\d+) (\w+) Time=(-?\d+)(.*)$`)
	goRE   = regexp.MustCompile(`^ GoID=(\d+) (\w+)->(\w+) Reason=("(?:[^"\\]|\\.)*")`)
	procRE = regexp.MustCompile(`^ ProcID=(\d+) (\w+)->(\w+)`)
	// Go 1.22 to 1.25 print the resource and the reason first.
	goRE125   = regexp.MustCompile(`^ Resource=Goroutine\(\d+\) Reason=("(?:[^"\\]|\\.)*") GoID=(\d+) (\w+)->(\w+)`)
	procRE125 = regexp.MustCompile(`^ Resource=Proc\(\d+\) Reason="(?:[^"\\]|\\.)*" ProcID=(\d+) (\w+)->(\w+)`)
	nameRE    = regexp.MustCompile(`^ Name=("(?:[^"\\]|\\.)*") Scope=(\w+)(?:\((\d+)\))?`)
	regRE     = regexp.MustCompile(`^ Task=\d+ Type=("(?:[^"\\]|\\.)*")`)
	logRE     = regexp.MustCompile(`^ Task=\d+ Category=("(?:[^"\\]|\\.)*") Message=("(?:[^"\\]|\\.)*")`)
	taskRE    = regexp.MustCompile(`^ ID=\d+ Parent=\d+ Type=("(?:[^"\\]|\\.)*")`)
	labelRE   = regexp.MustCompile(`^ Label=("(?:[^"\\]|\\.)*") Resource=Goroutine\((\d+)\)`)
	metRE     = regexp.MustCompile(`^ Name=("(?:[^"\\]|\\.)*") Value=(?:Value\{)?Uint64\((\d+)\)`) // Go 1.25 and before: no Value{}
	unquote   = func(t *testing.T, s string) string {
		u, err := strconv.Unquote(s)
		if err != nil {
			t.Fatalf("oracle: %s: %v", s, err)
		}
		return u
	}
)

// goValue is the value the reader gives a goroutine state.
func goValue(state, reason string) string {
	switch state {
	case "Waiting":
		if reason != "" {
			return "waiting: " + reason
		}
		return "waiting"
	case "Running", "Runnable", "Syscall":
		return strings.ToLower(state)
	}
	return "?" + state
}

// oracle runs `go tool trace -d=parsed` on path and walks its output.
func oracle(t *testing.T, path string) facts {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not installed: no oracle")
	}
	out, err := exec.Command("go", "tool", "trace", "-d=parsed", path).Output()
	if err != nil {
		t.Fatalf("go tool trace -d=parsed %s: %v", path, err)
	}
	return parseOracle(t, out)
}

// parseOracle walks the events printed by `go tool trace -d=parsed` (Go
// 1.24 on; `-d=1` of Go 1.22 and 1.23 prints the same lines).
func parseOracle(t *testing.T, out []byte) facts {
	t.Helper()
	var f facts
	type open struct {
		value string
		start int64
	}
	var base, last int64
	first := true
	gs := map[string]open{}        // goroutine -> its open state
	seen := map[string]bool{}      // goroutines with a transition so far
	runs := map[string]open{}      // running goroutine -> its P, since when
	ps := map[string]open{}        // P -> its open state
	regions := map[string][]open{} // goroutine -> open regions
	ranges := map[string]open{}    // "scope id name" -> open range
	metrics := map[string]open{}   // name -> value, since
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m := lineRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue // stacks and their headers
		}
		g, kind, rest := m[3], m[4], m[6]
		ts, _ := strconv.ParseInt(m[5], 10, 64)
		if first {
			base, first = ts, false
		}
		now := ts - base
		last = max(last, now)
		switch kind {
		case "StateTransition":
			s, p := goRE.FindStringSubmatch(rest), procRE.FindStringSubmatch(rest)
			if o := goRE125.FindStringSubmatch(rest); o != nil {
				s = []string{o[0], o[2], o[3], o[4], o[1]}
			}
			if o := procRE125.FindStringSubmatch(rest); o != nil {
				p = o
			}
			if s != nil {
				id, from, to := "G"+s[1], s[2], s[3]
				if from == to {
					continue
				}
				if o, ok := runs[id]; ok && from == "Running" {
					f.pRunning = append(f.pRunning, fmt.Sprintf("%s %d-%d", o.value, o.start, now))
					delete(runs, id)
				}
				if to == "Running" && m[2] != "-1" {
					runs[id] = open{"P" + m[2], now}
				}
				if o, ok := gs[id]; ok {
					f.goStates = append(f.goStates, fmt.Sprintf("%s %d-%d %s", id, o.start, now, o.value))
					delete(gs, id)
				}
				if to == "NotExist" {
					for r := regions[id]; len(r) > 0; r = r[:len(r)-1] {
						o := r[len(r)-1]
						f.regions = append(f.regions, fmt.Sprintf("%s %d-%d %d %s", id, o.start, now, len(r)-1, o.value))
					}
					delete(regions, id)
					for k, o := range ranges {
						if strings.HasPrefix(k, "Goroutine "+s[1]+" ") {
							f.ranges = append(f.ranges, rangeFact(k, o.value, o.start, now))
							delete(ranges, k)
						}
					}
					continue
				}
				// A goroutine first seen waiting or runnable has been so
				// since the trace began.
				since := now
				if !seen[id] && from == "Undetermined" && (to == "Waiting" || to == "Runnable") {
					since = 0
				}
				seen[id] = true
				gs[id] = open{goValue(to, unquote(t, s[4])), since}
				if from == "NotExist" && g != "-1" && "G"+g != id {
					f.links = append(f.links, fmt.Sprintf("G%s->%s %d-%d", g, id, now, now))
				}
			} else if s := p; s != nil {
				id, from, to := "P"+s[1], s[2], s[3]
				if from == to {
					continue
				}
				if o, ok := ps[id]; ok {
					f.pStates = append(f.pStates, fmt.Sprintf("%s %d-%d %s", id, o.start, now, o.value))
					delete(ps, id)
				}
				if to == "Running" || to == "Idle" {
					ps[id] = open{strings.ToLower(to), now}
				}
			}
		case "RegionBegin", "RegionEnd":
			s := regRE.FindStringSubmatch(rest)
			id := "G" + g
			if kind == "RegionBegin" {
				regions[id] = append(regions[id], open{unquote(t, s[1]), now})
			} else if r := regions[id]; len(r) > 0 {
				o := r[len(r)-1]
				regions[id] = r[:len(r)-1]
				f.regions = append(f.regions, fmt.Sprintf("%s %d-%d %d %s", id, o.start, now, len(r)-1, o.value))
			}
		case "Log":
			s := logRE.FindStringSubmatch(rest)
			text := unquote(t, s[2])
			if c := unquote(t, s[1]); c != "" {
				text = c + ": " + text
			}
			f.logs = append(f.logs, fmt.Sprintf("G%s %d-%d %s", g, now, now, text))
		case "StackSample":
			f.samples++
		case "TaskBegin", "TaskEnd":
			s := taskRE.FindStringSubmatch(rest)
			kind := map[string]string{"TaskBegin": EventTaskBegin, "TaskEnd": EventTaskEnd}[kind]
			f.logs = append(f.logs, fmt.Sprintf("G%s %d-%d %s: %s", g, now, now, kind, unquote(t, s[1])))
		case "Label":
			s := labelRE.FindStringSubmatch(rest)
			f.logs = append(f.logs, fmt.Sprintf("G%s %d-%d %s: %s", s[2], now, now, EventLabel, unquote(t, s[1])))
		case "RangeBegin", "RangeActive", "RangeEnd":
			s := nameRE.FindStringSubmatch(rest)
			name, scope, id := unquote(t, s[1]), s[2], s[3]
			key := scope + " " + id + " " + name
			if strings.HasPrefix(name, "stop-the-world") {
				key = "None  STW" // global, one at a time, whatever the reason
			}
			o, isOpen := ranges[key]
			switch {
			case kind != "RangeEnd" && !isOpen:
				ranges[key] = open{name, now}
			case kind == "RangeEnd" && isOpen:
				f.ranges = append(f.ranges, rangeFact(key, o.value, o.start, now))
				delete(ranges, key)
			}
		case "Metric":
			s := metRE.FindStringSubmatch(rest)
			name := unquote(t, s[1])
			o, seen := metrics[name]
			if !seen {
				metrics[name] = open{s[2], now}
			} else if o.value != s[2] {
				f.variables = append(f.variables, fmt.Sprintf("%s %d-%d %s", name, o.start, now, o.value))
				metrics[name] = open{s[2], now}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	// What is open at the end ends with the last event.
	for id, o := range gs {
		f.goStates = append(f.goStates, fmt.Sprintf("%s %d-%d %s", id, o.start, last, o.value))
	}
	for _, o := range runs {
		f.pRunning = append(f.pRunning, fmt.Sprintf("%s %d-%d", o.value, o.start, last))
	}
	for id, o := range ps {
		f.pStates = append(f.pStates, fmt.Sprintf("%s %d-%d %s", id, o.start, last, o.value))
	}
	unended, on := 0, 0
	for id, r := range regions {
		for d, o := range r {
			f.regions = append(f.regions, fmt.Sprintf("%s %d-%d %d %s", id, o.start, last, d, o.value))
		}
		if len(r) > 0 {
			unended, on = unended+len(r), on+1
		}
	}
	if unended > 0 {
		f.unended = fmt.Sprintf("%d on %d", unended, on)
	}
	for k, o := range ranges {
		f.ranges = append(f.ranges, rangeFact(k, o.value, o.start, last))
	}
	for name, o := range metrics {
		f.variables = append(f.variables, fmt.Sprintf("%s %d-%d %s", name, o.start, last, o.value))
	}
	f.end = trace.Time(last)
	f.sort()
	return f
}

// rangeFact describes a range by its scope ("Goroutine 7", "Proc 1",
// "None "), value and span.
func rangeFact(key, value string, start, end int64) string {
	f := strings.SplitN(key, " ", 3)
	return fmt.Sprintf("%s %s %s %d-%d", f[0], f[1], value, start, end)
}

// spanRE matches the times of a fact.
var spanRE = regexp.MustCompile(`-?\d+--?\d+`)

// withoutTimes blurs the times of every fact: the old format's converter
// gives the goroutines that exist when the trace starts made-up times, a
// nanosecond apart, in an order that changes from one parse to the next.
func (f facts) withoutTimes() facts {
	blur := func(l []string) []string {
		out := make([]string, len(l))
		for i, s := range l {
			out[i] = spanRE.ReplaceAllString(s, "t")
		}
		slices.Sort(out)
		return out
	}
	return facts{goStates: blur(f.goStates), pStates: blur(f.pStates), regions: blur(f.regions), links: blur(f.links),
		ranges: blur(f.ranges), variables: blur(f.variables), logs: blur(f.logs), pRunning: blur(f.pRunning), samples: f.samples,
		unended: f.unended}
}

func (f *facts) sort() {
	for _, l := range []*[]string{&f.goStates, &f.pStates, &f.regions, &f.links, &f.logs, &f.ranges, &f.variables, &f.pRunning} {
		slices.Sort(*l)
	}
}

// modelFacts describes a trace the reader delivered as the oracle does.
func modelFacts(tr *trace.Trace) facts {
	var f facts
	alias := func(c int32) string { return tr.Containers[c].Alias }
	// The scope of a range: the oracle's "Kind id".
	scope := func(c int32) string {
		switch tr.TypeName(tr.Containers[c].Type) {
		case TypeGoroutine:
			return "Goroutine " + strings.TrimPrefix(alias(c), "G")
		case TypeP:
			return "Proc " + strings.TrimPrefix(alias(c), "P")
		}
		return "None "
	}
	for _, s := range tr.States.All() {
		span := fmt.Sprintf("%d-%d", s.Start, s.End)
		switch name := tr.TypeName(s.Type); name {
		case StateGoroutine:
			f.goStates = append(f.goStates, fmt.Sprintf("%s %s %s", alias(s.Container), span, tr.ValueName(s.Value)))
		case StateP:
			f.pStates = append(f.pStates, fmt.Sprintf("%s %s %s", alias(s.Container), span, tr.ValueName(s.Value)))
		case StateRegion:
			f.regions = append(f.regions, fmt.Sprintf("%s %s %d %s", alias(s.Container), span, s.Depth, tr.ValueName(s.Value)))
		case StatePRunning:
			f.pRunning = append(f.pRunning, fmt.Sprintf("%s %s", alias(s.Container), span))
		default:
			f.ranges = append(f.ranges, fmt.Sprintf("%s %s %s", scope(s.Container), tr.ValueName(s.Value), span))
		}
	}
	for _, l := range tr.Links.All() {
		f.links = append(f.links, fmt.Sprintf("%s->%s %d-%d", alias(l.From), alias(l.To), l.Start, l.End))
	}
	for _, e := range tr.Events.All() {
		switch name := tr.TypeName(e.Type); name {
		case EventLog:
			f.logs = append(f.logs, fmt.Sprintf("%s %d-%d %s", alias(e.Container), e.Time, e.Time, tr.ValueName(e.Value)))
		default:
			f.logs = append(f.logs, fmt.Sprintf("%s %d-%d %s: %s", alias(e.Container), e.Time, e.Time, name, tr.ValueName(e.Value)))
		}
	}
	for _, v := range tr.Variables.All() {
		f.variables = append(f.variables, fmt.Sprintf("%s %d-%d %d", tr.TypeName(v.Type), v.Start, v.End, int64(v.Value)))
	}
	f.end = tr.End
	f.sort()
	return f
}

// compareFacts reports the first difference of each kind of entity.
func compareFacts(t *testing.T, got, want facts) {
	t.Helper()
	check := func(what string, g, w []string) {
		t.Helper()
		if slices.Equal(g, w) {
			return
		}
		for i := range min(len(g), len(w)) {
			if g[i] != w[i] {
				t.Errorf("%s: %d, want %d; first difference at %d: %q, want %q", what, len(g), len(w), i, g[i], w[i])
				return
			}
		}
		t.Errorf("%s: %d, want %d", what, len(g), len(w))
	}
	check("goroutine states", got.goStates, want.goStates)
	check("P states", got.pStates, want.pStates)
	check("regions", got.regions, want.regions)
	check("spawn links", got.links, want.links)
	check("logs, tasks and labels", got.logs, want.logs)
	check("runtime ranges", got.ranges, want.ranges)
	check("metrics", got.variables, want.variables)
	check("goroutine runs on Ps", got.pRunning, want.pRunning)
	if got.unended != want.unended {
		t.Errorf("user regions open at the end: %q, want %q", got.unended, want.unended)
	}
	if got.samples != want.samples {
		t.Errorf("%d CPU profile samples skipped, want %d", got.samples, want.samples)
	}
	if got.end != want.end {
		t.Errorf("end %v, want %v", got.end, want.end)
	}
}
