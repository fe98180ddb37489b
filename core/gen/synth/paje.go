package synth

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Stats describe a generated trace.
type Stats struct {
	Containers int   // containers, the root excluded
	States     int64 // state intervals
	// Events counts the event lines of a Pajé trace (type, value and
	// container definitions, state changes, container ends); 0 for tables.
	Events   int64
	Bytes    int64      // size of the output
	Duration trace.Time // the trace spans [0, Duration]
}

// pajeHeader defines the events the generator writes, in SimGrid's style:
// numeric event ids, containers and values named by short aliases.
const pajeHeader = `%EventDef PajeDefineContainerType 0
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeDefineStateType 1
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeDefineEntityValue 2
% Alias string
% Type string
% Name string
% Color color
%EndEventDef
%EventDef PajeCreateContainer 3
% Time date
% Alias string
% Type string
% Container string
% Name string
%EndEventDef
%EventDef PajeDestroyContainer 4
% Time date
% Type string
% Name string
%EndEventDef
%EventDef PajeSetState 5
% Time date
% Type string
% Container string
% Value string
%EndEventDef
0 S 0 Site
0 C S Cluster
0 M C Machine
0 K M Core
1 ST K State
`

// headerEvents is the number of event lines of pajeHeader (the type
// definitions).
const headerEvents = 5

// Type names of the hierarchy, by level, and the aliases the file uses.
var (
	typeNames   = [...]string{"Site", "Cluster", "Machine", "Core"}
	typeAliases = [...]string{"S", "C", "M", "K"}
	// Container aliases are a letter and the container's index among all
	// the containers of its level.
	aliasLetters = [...]byte{'s', 'c', 'm', 'k'}
)

// palette colours the states, in order.
var palette = []string{"0.2 0.6 0.2", "0.9 0.6 0.1", "0.2 0.4 0.9", "0.8 0.1 0.1", "0.6 0.6 0.6",
	"0.6 0.2 0.7", "0.1 0.7 0.7", "0.9 0.9 0.2"}

// WritePaje writes the trace c describes to w in the Pajé format, as pj_dump
// reads it: the hierarchy is created at instant 0, every core then changes
// state (PajeSetState) in time order, and the whole hierarchy is destroyed
// at the end of the trace, bottom up.
func WritePaje(w io.Writer, c Config) (Stats, error) {
	c.Format = FormatPaje
	if err := c.Validate(); err != nil {
		return Stats{}, err
	}
	p := newPlan(&c)
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<20)
	pw := &pajeWriter{w: bw, plan: p}
	pw.header()
	st := pw.body()
	if pw.err != nil {
		return Stats{}, pw.err
	}
	if err := bw.Flush(); err != nil {
		return Stats{}, err
	}
	st.Bytes = cw.n
	return st, nil
}

type pajeWriter struct {
	w    *bufio.Writer
	plan *plan
	line []byte
	st   Stats
	err  error // the first write error; generation stops there
}

func (pw *pajeWriter) header() {
	pw.w.WriteString(pajeHeader)
	pw.st.Events = headerEvents
	for i, n := range pw.plan.names {
		b := append(pw.line[:0], "2 v"...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, " ST "...)
		b = appendName(b, n)
		b = append(b, " \""...)
		b = append(b, palette[i%len(palette)]...)
		b = append(b, "\"\n"...)
		pw.emit(b)
	}
}

func (pw *pajeWriter) emit(b []byte) {
	pw.line = b
	if _, err := pw.w.Write(b); err != nil && pw.err == nil {
		pw.err = err
	}
	pw.st.Events++
}

// body writes the containers, the states and the end of the containers.
func (pw *pajeWriter) body() Stats {
	p := pw.plan
	c := p.cfg
	counts := [4]int{c.Sites, c.Clusters, c.Machines, c.Cores}
	// Depth-first creation at instant 0; next[l] numbers the containers of
	// level l.
	var next [4]int
	var create func(level, parent int)
	create = func(level, parent int) {
		for i := 0; i < counts[level]; i++ {
			id := next[level]
			next[level]++
			b := append(pw.line[:0], "3 0.000000000 "...)
			b = appendAlias(b, level, id)
			b = append(b, ' ')
			b = append(b, typeAliases[level]...)
			b = append(b, ' ')
			if level == 0 {
				b = append(b, '0')
			} else {
				b = appendAlias(b, level-1, parent)
			}
			b = append(b, ' ')
			b = append(b, strings.ToLower(typeNames[level])...)
			b = append(b, '-')
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, '\n')
			pw.emit(b)
			pw.st.Containers++
			if level < 3 {
				create(level+1, id)
			}
		}
	}
	create(0, 0)

	g := newGenerator(p)
	for pw.err == nil {
		iv, ok := g.next()
		if !ok {
			break
		}
		b := append(pw.line[:0], "5 "...)
		b = appendTime(b, iv.start)
		b = append(b, " ST k"...)
		b = strconv.AppendInt(b, int64(iv.core), 10)
		b = append(b, " v"...)
		b = strconv.AppendInt(b, int64(iv.state), 10)
		b = append(b, '\n')
		pw.emit(b)
		pw.st.States++
		if err := c.tick(pw.st.States); err != nil && pw.err == nil {
			pw.err = err
		}
	}

	// Destroy bottom up, children before their parent.
	next = [4]int{}
	var destroy func(level int)
	destroy = func(level int) {
		for range counts[level] {
			id := next[level]
			next[level]++
			if level < 3 {
				destroy(level + 1)
			}
			b := append(pw.line[:0], "4 "...)
			b = appendTime(b, p.duration)
			b = append(b, ' ')
			b = append(b, typeAliases[level]...)
			b = append(b, ' ')
			b = appendAlias(b, level, id)
			b = append(b, '\n')
			pw.emit(b)
		}
	}
	destroy(0)
	pw.st.Duration = p.duration
	return pw.st
}

func appendAlias(b []byte, level, id int) []byte {
	b = append(b, aliasLetters[level])
	return strconv.AppendInt(b, int64(id), 10)
}

// appendName writes a name, between double quotes when it holds blanks.
func appendName(b []byte, n string) []byte {
	if strings.ContainsAny(n, " \t\v\f") || n[0] == '#' {
		return append(append(append(b, '"'), n...), '"')
	}
	return append(b, n...)
}

// appendTime writes t in seconds with nine decimals.
func appendTime(b []byte, t trace.Time) []byte {
	b = strconv.AppendInt(b, int64(t/trace.Second), 10)
	frac := uint32(t % trace.Second)
	var digits [10]byte
	digits[0] = '.'
	for i := 9; i > 0; i-- {
		digits[i] = byte('0' + frac%10)
		frac /= 10
	}
	return append(b, digits[:]...)
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
