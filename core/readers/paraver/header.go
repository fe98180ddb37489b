package paraver

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// header is what the first line of a .prv file declares.
type header struct {
	date  string
	end   trace.Time // the trace's duration, in nanoseconds
	unit  int64      // nanoseconds per time unit of the records
	nodes []int      // CPUs of each node; nil when the trace has no resource model
	apps  []app
	comms int // communicator lines ("c:") that follow
	// unknownUnit is the duration's unit suffix when Paraver does not know
	// it either and takes microseconds; "" otherwise.
	unknownUnit string
	// skipped is the text Paraver skips between an application's number
	// of tasks and its '(' (a writer of power traces puts ':' there), one
	// entry per application; nil when there is none.
	skipped []string
}

type app struct {
	tasks []task
}

type task struct {
	threads int
	node    int // 1-based; 0 when unknown
}

func (h *header) cpus() int {
	n := 0
	for _, c := range h.nodes {
		n += c
	}
	return n
}

// maxResources bounds the threads, and the CPUs, a header may declare, so
// that a corrupt header of a few bytes cannot make the reader create
// containers without end. It is far above the traces of the largest runs;
// the fuzz test lowers it.
var maxResources = 1 << 20

// units maps the suffix of the trace duration to nanoseconds. Without a
// suffix Paraver takes microseconds, as its own reader does.
var units = map[string]int64{"": 1000, "_ns": 1, "_us": 1000, "_ms": 1000000, "_s": 1000000000}

// parseHeader parses
//
//	#Paraver (dd/mm/yy at hh:mm):duration[_unit]:resources:nApps:app1:app2...[,nComms]
//
// (Paraver also takes ',' between applications and ':' before nComms, as
// it reads any one character there.)
//
// where resources is 0 (none), nNodes (one CPU each) or nNodes(cpus,...),
// and each application is nTasks(threads:node,...).
func parseHeader(line string) (*header, error) {
	rest, ok := strings.CutPrefix(line, "#Paraver ")
	if !ok {
		// A SLURM plugin that traces jobs writes the word in capitals;
		// Paraver's header parser does not look at it.
		rest, ok = strings.CutPrefix(line, "#PARAVER ")
	}
	if !ok {
		return nil, errors.New(`not a Paraver trace: the first line does not start with "#Paraver "`)
	}
	date, rest, ok := strings.Cut(rest, "):")
	if !ok || !strings.HasPrefix(date, "(") {
		return nil, errors.New("header: expected (date): after #Paraver")
	}
	h := &header{date: date[1:]}
	c := &cursor{s: rest}

	duration := c.until(':')
	digits := strings.TrimRight(duration, "_abcdefghijklmnopqrstuvwxyz")
	suffix := duration[len(digits):]
	unit, ok := units[suffix]
	if !ok {
		if !strings.HasPrefix(suffix, "_") {
			return nil, fmt.Errorf("header: unknown time unit %s", errs.Quote(suffix))
		}
		// Paraver reads any other _suffix as microseconds.
		unit, h.unknownUnit = 1000, suffix
	}
	h.unit = unit
	d, err := strconv.ParseInt(digits, 10, 64)
	switch {
	case err == nil && d >= 0:
		if h.end, err = scale(d, unit); err != nil {
			return nil, fmt.Errorf("header: trace duration %s: %v", errs.Quote(duration), err)
		}
	default:
		// Paraver reads the duration as a floating-point number: some
		// writers give decimals ("1000.000000_ms"). It is the trace's end,
		// rounded up to the nanosecond, from the decimal text itself: the
		// float64 product of the number and the unit overshoots a whole
		// number of nanoseconds now and then (33923.491904 ms is
		// 33923491904.000004 ns), which rounded up would be one more.
		f, ferr := strconv.ParseFloat(digits, 64)
		if ferr != nil || !(f >= 0) || math.IsInf(f, 0) || strings.ContainsAny(digits, "xXpPnN_/") {
			return nil, fmt.Errorf("header: bad trace duration %s", errs.Quote(duration))
		}
		if f*float64(unit) >= math.MaxInt64 {
			return nil, fmt.Errorf("header: trace duration %s: out of range (more than 292 years in nanoseconds)", errs.Quote(duration))
		}
		// An exponent far past a float64's (which ParseFloat takes as 0 or
		// as infinity) would make the exact number a huge one to build.
		exp := 0
		if i := strings.IndexAny(digits, "eE"); i >= 0 {
			exp, ferr = strconv.Atoi(digits[i+1:])
		}
		r, ok := new(big.Rat).SetString(digits)
		if ferr != nil || exp < -400 || exp > 400 || !ok {
			return nil, fmt.Errorf("header: bad trace duration %s", errs.Quote(duration))
		}
		r.Mul(r, new(big.Rat).SetInt64(unit))
		ns, rem := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
		if rem.Sign() > 0 {
			ns.Add(ns, big.NewInt(1))
		}
		if !ns.IsInt64() {
			return nil, fmt.Errorf("header: trace duration %s: out of range (more than 292 years in nanoseconds)", errs.Quote(duration))
		}
		h.end = trace.Time(ns.Int64())
	}
	if err := c.expect(':'); err != nil {
		return nil, err
	}

	nodes, err := c.count("number of nodes", 0)
	if err != nil {
		return nil, err
	}
	totalCPUs := 0
	if c.peek() == '(' {
		c.i++
		for n := range nodes {
			cpus, err := c.count("number of CPUs", 1)
			if err != nil {
				return nil, err
			}
			if totalCPUs += cpus; totalCPUs > maxResources {
				return nil, fmt.Errorf("header declares more than %d CPUs", maxResources)
			}
			h.nodes = append(h.nodes, cpus)
			if n < nodes-1 {
				err = c.expect(',')
			} else {
				err = c.expect(')')
			}
			if err != nil {
				return nil, err
			}
		}
	} else {
		for range nodes {
			h.nodes = append(h.nodes, 1)
		}
	}
	if err := c.expect(':'); err != nil {
		return nil, err
	}

	apps, err := c.count("number of applications", 1)
	if err != nil {
		return nil, err
	}
	threads := 0
	if err := c.expect(':'); err != nil {
		return nil, err
	}
	for a := range apps {
		tasks, err := c.count("number of tasks", 1)
		if err != nil {
			return nil, err
		}
		// Paraver reads the number of tasks up to the '(' and skips what
		// follows the digits: "1:(1:1)" is one task.
		if c.peek() != '(' {
			at := c.i
			if junk := c.until('('); c.peek() == '(' && !strings.ContainsAny(junk, "()") {
				h.skipped = append(h.skipped, junk)
			} else {
				c.i = at
			}
		}
		if err := c.expect('('); err != nil {
			return nil, err
		}
		var ap app
		for t := range tasks {
			n, err := c.count("number of threads", 1)
			if err != nil {
				return nil, err
			}
			if threads += n; threads > maxResources {
				return nil, fmt.Errorf("header declares more than %d threads", maxResources)
			}
			if err := c.expect(':'); err != nil {
				return nil, err
			}
			node, err := c.count("node", 0)
			if err != nil {
				return nil, err
			}
			// Without a resource model (0) Paraver takes the tasks'
			// nodes as they come (processmodel.cpp checks them only
			// when resources are declared): writers that have no CPUs
			// to describe still number their nodes from 1 (EAR's
			// ear2prv: "...:0:1:2(1:1,1:2)").
			if nodes > 0 && node > len(h.nodes) {
				return nil, fmt.Errorf("header: task %d.%d runs on node %d, but there are %d nodes", a+1, t+1, node, len(h.nodes))
			}
			ap.tasks = append(ap.tasks, task{threads: n, node: node})
			if t < tasks-1 {
				err = c.expect(',')
			} else {
				err = c.expect(')')
			}
			if err != nil {
				return nil, err
			}
		}
		h.apps = append(h.apps, ap)
		// Paraver takes whatever character follows an application as its
		// separator: ':' as documented, or ',' as tools that append an
		// application to an Extrae trace write ("2:8(...),12(...),14").
		if a < apps-1 {
			if c.peek() != ':' && c.peek() != ',' {
				if c.i >= len(c.s) {
					return nil, fmt.Errorf("header: expected ':' or ',' before application %d, found the end of the line", a+2)
				}
				return nil, fmt.Errorf("header: expected ':' or ',' before application %d at column %d, found %q", a+2, c.i+1, c.s[c.i])
			}
			c.i++
		}
	}
	if c.peek() == ',' || c.peek() == ':' {
		c.i++
		if h.comms, err = c.count("number of communicators", 0); err != nil {
			return nil, err
		}
	}
	if c.i != len(c.s) {
		return nil, fmt.Errorf("header: unexpected %s after the applications", errs.Quote(c.s[c.i:]))
	}
	return h, nil
}

// scale converts a count of time units to nanoseconds.
func scale(v, unit int64) (trace.Time, error) {
	if v > math.MaxInt64/unit || v < math.MinInt64/unit {
		return 0, errors.New("out of range (more than 292 years in nanoseconds)")
	}
	return trace.Time(v * unit), nil
}

// cursor walks the header text.
type cursor struct {
	s string
	i int
}

func (c *cursor) peek() byte {
	if c.i < len(c.s) {
		return c.s[c.i]
	}
	return 0
}

func (c *cursor) until(b byte) string {
	start := c.i
	for c.i < len(c.s) && c.s[c.i] != b {
		c.i++
	}
	return c.s[start:c.i]
}

func (c *cursor) expect(b byte) error {
	if c.peek() != b {
		if c.i >= len(c.s) {
			return fmt.Errorf("header: expected %q, found the end of the line", b)
		}
		return fmt.Errorf("header: expected %q at column %d, found %q", b, c.i+1, c.s[c.i])
	}
	c.i++
	return nil
}

// count reads a decimal count of at least min.
func (c *cursor) count(what string, min int) (int, error) {
	start := c.i
	for c.i < len(c.s) && c.s[c.i] >= '0' && c.s[c.i] <= '9' {
		c.i++
	}
	n, err := strconv.Atoi(c.s[start:c.i])
	if err != nil || n < min || n > maxResources {
		return 0, fmt.Errorf("header: bad %s %s", what, errs.Quote(c.s[start:c.i]))
	}
	return n, nil
}
