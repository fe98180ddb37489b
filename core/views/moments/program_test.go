package moments

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A program is a random sequence of Pajé state operations on one
// container, decoded from bytes; brute force over unit time steps says
// what every nesting rule must find.
type program struct {
	text    string
	end     int
	counted [4]bool
	// snapshots[t] is the state stack during [t, t+1) seconds.
	snapshots [][]int
}

var programValues = []string{"v0", "v1", "v2", "v3"}

func decodeProgram(ops []byte) program {
	var p program
	var b strings.Builder
	b.WriteString(pajeHeader)
	b.WriteString("0 P 0 Proc\n2 S P State\n6 0 p P 0 p\n")
	if len(ops) > 0 {
		for i := range p.counted {
			p.counted[i] = ops[0]>>i&1 == 1
		}
		ops = ops[1:]
	}
	var stack []int
	now := 0
	for _, op := range ops {
		v := int(op>>2) % len(programValues)
		switch op & 3 {
		case 0:
			fmt.Fprintf(&b, "11 %d S p %s\n", now, programValues[v])
			stack = append(stack[:0], v)
		case 1:
			fmt.Fprintf(&b, "12 %d S p %s\n", now, programValues[v])
			stack = append(stack, v)
		case 2:
			if len(stack) > 0 {
				fmt.Fprintf(&b, "13 %d S p\n", now)
				stack = stack[:len(stack)-1]
			}
		case 3:
			for range 1 + int(op>>2)%3 {
				p.snapshots = append(p.snapshots, slices.Clone(stack))
				now++
			}
		}
	}
	fmt.Fprintf(&b, "7 %d P p\n", now)
	p.text, p.end = b.String(), now
	return p
}

// expected returns, by value name (NoStateName for gaps), the unit
// intervals of busy time under a nesting rule, clipped to [lo, hi).
func (p program) expected(nesting Nesting, gaps bool, lo, hi int) map[string][]interval {
	want := map[string][]interval{}
	for t, stack := range p.snapshots {
		if t < lo || t >= hi {
			continue
		}
		owner := -1
		switch {
		case len(stack) == 0:
			if gaps {
				want[NoStateName] = append(want[NoStateName], interval{sec(float64(t)), sec(float64(t + 1))})
			}
			continue
		case nesting == Innermost:
			if top := stack[len(stack)-1]; p.counted[top] {
				owner = top
			}
		default:
			for _, v := range stack {
				if p.counted[v] {
					owner = v
					break
				}
			}
		}
		if owner >= 0 {
			name := programValues[owner]
			want[name] = append(want[name], interval{sec(float64(t)), sec(float64(t + 1))})
		}
	}
	return want
}

func checkProgram(t *testing.T, ops []byte) {
	p := decodeProgram(ops)
	if p.end == 0 {
		return
	}
	var only []string
	for i, c := range p.counted {
		if c {
			only = append(only, programValues[i])
		}
	}
	lo, hi := 0, p.end
	if len(ops) > 2 {
		lo, hi = int(ops[1])%p.end, p.end-int(ops[2])%p.end
		if lo >= hi {
			lo, hi = 0, p.end
		}
	}
	for _, nesting := range []Nesting{Innermost, Union} {
		for _, gaps := range []bool{false, true} {
			want := p.expected(nesting, gaps, lo, hi)
			opt := Options{Select: Only, Values: only, Nesting: nesting, Gaps: gaps, ByState: true}
			start, end := sec(float64(lo)), sec(float64(hi))
			opt.Start, opt.End = &start, &end
			acc, err := New(opt)
			if err != nil {
				continue // nothing counts
			}
			if err := decodeInto(p.text, acc); err != nil {
				t.Fatalf("%v\n%s", err, p.text)
			}
			r, err := acc.Result()
			if err != nil {
				if isArgumentError(err) {
					continue // a listed value never occurs, or an empty window
				}
				t.Fatalf("%v\n%s", err, p.text)
			}
			var all []interval
			seen := map[string]bool{}
			for _, s := range r.States {
				if s.Container != 1 {
					t.Fatalf("state sums on container %d", s.Container)
				}
				seen[s.Name] = true
				if len(want[s.Name]) == 0 {
					if !s.Sums.Empty() {
						t.Fatalf("%v gaps=%v: %s busy %v, want none\n%s", nesting, gaps, s.Name, s.Sums.Busy(), p.text)
					}
					continue
				}
				checkExact(t, fmt.Sprintf("%v gaps=%v %s", nesting, gaps, s.Name), s.Sums, want[s.Name])
				all = append(all, want[s.Name]...)
			}
			for name, ivs := range want {
				if !seen[name] && len(ivs) > 0 {
					t.Fatalf("%v gaps=%v: no sums for %s\n%s", nesting, gaps, name, p.text)
				}
			}
			if len(all) == 0 {
				if !r.Busy[1].Empty() {
					t.Fatalf("%v gaps=%v: busy %v, want none", nesting, gaps, r.Busy[1].Busy())
				}
			} else {
				checkExact(t, "resource", r.Busy[1], all)
			}
		}
	}
}

func TestRandomPrograms(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for range 500 {
		ops := make([]byte, 1+rng.IntN(60))
		for i := range ops {
			ops[i] = byte(rng.IntN(256))
		}
		checkProgram(t, ops)
	}
}

func FuzzNesting(f *testing.F) {
	readertest.BoundMinimization(f)
	f.Add([]byte{0x0f, 0, 0, 0x00, 0x03, 0x05, 0x07, 0x02, 0x03})
	f.Add([]byte{0x05, 1, 1, 0x04, 0x0b, 0x09, 0x07, 0x0d, 0x03, 0x02, 0x07, 0x02, 0x0f})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 200 {
			return
		}
		checkProgram(t, ops)
	})
}

func decodeInto(text string, sink trace.Sink) error {
	return pajeDecode(text, sink)
}
