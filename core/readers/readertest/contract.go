package readertest

import (
	"errors"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/macroscope-hpc/macroscope/core/errs"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Contract is a trace.Sink that checks the Sink contract as a reader
// calls it, for fuzz targets: every index refers to something defined
// before (types, values, containers; container 0 is the root), intervals
// do not end before they begin, names are valid UTF-8 (tables and Python
// need it: a reader replaces invalid bytes, ingest.ValidText), Finish
// comes once and last. It forwards
// every call to Next when set. Err reports the first violation.
//
// It keeps only counts, so it costs next to nothing per call: a fuzz
// target can check every execution.
type Contract struct {
	Next trace.Sink

	types      []trace.Kind
	values     int32
	containers int32
	finished   bool
	err        error
}

// NewContract returns a Contract forwarding to next (nil: to nothing).
func NewContract(next trace.Sink) *Contract {
	return &Contract{Next: next, containers: 1}
}

// Err returns the first violation of the contract, nil if none.
func (c *Contract) Err() error { return c.err }

// Finished tells whether Finish was called.
func (c *Contract) Finished() bool { return c.finished }

func (c *Contract) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("sink contract: "+format, args...)
	}
}

func (c *Contract) live(call string) {
	if c.finished {
		c.fail("%s after Finish", call)
	}
}

// typ checks that t is a defined type, of kind k when k is not 255.
func (c *Contract) typ(call string, t int32, k trace.Kind) {
	if t < 0 || int(t) >= len(c.types) {
		c.fail("%s: type %d undefined (%d types)", call, t, len(c.types))
		return
	}
	if k != 255 && c.types[t] != k {
		c.fail("%s: type %d is a %v type, want %v", call, t, c.types[t], k)
	}
}

func (c *Contract) container(call string, id int32) {
	if id < 0 || id >= c.containers {
		c.fail("%s: container %d undefined (%d containers)", call, id, c.containers)
	}
}

func (c *Contract) value(call string, v int32) {
	if v != trace.None && (v < 0 || v >= c.values) {
		c.fail("%s: value %d undefined (%d values)", call, v, c.values)
	}
}

// text checks that the strings a call passes are valid UTF-8.
func (c *Contract) text(call string, ss ...string) {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			c.fail("%s: %q is not valid UTF-8", call, s)
		}
	}
}

func (c *Contract) interval(call string, start, end trace.Time) {
	if end < start {
		c.fail("%s: ends at %d before it starts at %d", call, end, start)
	}
}

func (c *Contract) DefineType(t trace.Type) {
	c.live("DefineType")
	c.text("DefineType", t.Name, t.Alias, t.Color)
	if t.Parent != trace.None {
		c.typ("DefineType(parent)", t.Parent, trace.KindContainer)
	}
	if t.Kind == trace.KindLink {
		for _, end := range []int32{t.Start, t.End} {
			if end != trace.None {
				c.typ("DefineType(link end)", end, trace.KindContainer)
			}
		}
	}
	if t.Kind > trace.KindLink {
		c.fail("DefineType: kind %d", t.Kind)
	}
	c.types = append(c.types, t.Kind)
	if c.Next != nil {
		c.Next.DefineType(t)
	}
}

func (c *Contract) DefineValue(v trace.Value) {
	c.live("DefineValue")
	c.text("DefineValue", v.Name, v.Alias, v.Color, v.Category)
	c.typ("DefineValue", v.Type, 255)
	c.values++
	if c.Next != nil {
		c.Next.DefineValue(v)
	}
}

func (c *Contract) CreateContainer(k trace.Container) {
	c.live("CreateContainer")
	c.text("CreateContainer", k.Name, k.Alias)
	c.typ("CreateContainer", k.Type, trace.KindContainer)
	c.container("CreateContainer(parent)", k.Parent)
	c.containers++
	if c.Next != nil {
		c.Next.CreateContainer(k)
	}
}

func (c *Contract) DestroyContainer(id int32, at trace.Time) {
	c.live("DestroyContainer")
	if id == 0 {
		c.fail("DestroyContainer: the root")
	}
	c.container("DestroyContainer", id)
	if c.Next != nil {
		c.Next.DestroyContainer(id, at)
	}
}

func (c *Contract) State(s trace.State) {
	c.live("State")
	c.container("State", s.Container)
	c.typ("State", s.Type, trace.KindState)
	c.value("State", s.Value)
	c.interval("State", s.Start, s.End)
	if s.Depth < 0 {
		c.fail("State: depth %d", s.Depth)
	}
	if c.Next != nil {
		c.Next.State(s)
	}
}

func (c *Contract) Variable(v trace.Variable) {
	c.live("Variable")
	c.container("Variable", v.Container)
	c.typ("Variable", v.Type, trace.KindVariable)
	c.interval("Variable", v.Start, v.End)
	if c.Next != nil {
		c.Next.Variable(v)
	}
}

func (c *Contract) Link(l trace.Link) {
	c.live("Link")
	c.text("Link", l.Key)
	c.container("Link", l.Container)
	c.container("Link(from)", l.From)
	c.container("Link(to)", l.To)
	c.typ("Link", l.Type, trace.KindLink)
	c.value("Link", l.Value)
	if c.Next != nil {
		c.Next.Link(l)
	}
}

func (c *Contract) Event(e trace.Event) {
	c.live("Event")
	c.container("Event", e.Container)
	c.typ("Event", e.Type, trace.KindEvent)
	c.value("Event", e.Value)
	if c.Next != nil {
		c.Next.Event(e)
	}
}

func (c *Contract) Finish(start, end trace.Time) {
	c.live("Finish")
	c.finished = true
	if c.Next != nil {
		c.Next.Finish(start, end)
	}
}

// CheckRead is the invariant of the readers' fuzz targets, after a read
// of input named file into c: a failure is an *errs.FormatError naming
// file (any non-empty name when file is ""), a success has called Finish;
// either way the calls made kept the Sink contract.
func CheckRead(t testing.TB, file string, err error, c *Contract) {
	t.Helper()
	if err != nil {
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File == "" || (file != "" && fe.File != file) {
			t.Fatalf("error %v (%T) is not a *errs.FormatError naming %q", err, err, file)
		}
	} else if c != nil && !c.Finished() {
		t.Fatalf("the read succeeded without calling Finish")
	}
	if c != nil && c.Err() != nil {
		t.Fatal(c.Err())
	}
}
