// Command pajeread reads a Pajé trace with Macroscope's reader, once, into
// one of several sinks, and prints what it read and how long it took.
// bench/paje_vs_pjdump.py runs it against pj_dump on the same trace, each
// in its own process so that peak memory is measured per run.
//
//	pajeread -sink count trace    stream into a sink that only counts
//	pajeread -sink trace trace    read the whole trace into memory
//	pajeread -sink micro trace    in memory, then the microscopic model
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/paje"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// counter is a sink that only counts what it receives.
type counter struct {
	containers, states, variables, links, events int
}

func (c *counter) DefineType(trace.Type)              {}
func (c *counter) DefineValue(trace.Value)            {}
func (c *counter) CreateContainer(trace.Container)    { c.containers++ }
func (c *counter) DestroyContainer(int32, trace.Time) {}
func (c *counter) State(trace.State)                  { c.states++ }
func (c *counter) Variable(trace.Variable)            { c.variables++ }
func (c *counter) Link(trace.Link)                    { c.links++ }
func (c *counter) Event(trace.Event)                  { c.events++ }
func (c *counter) Finish(trace.Time, trace.Time)      {}

// result is what pajeread prints, as one JSON object.
type result struct {
	Sink       string  `json:"sink"`
	Seconds    float64 `json:"seconds"` // reading (and modelling), process start-up excluded
	Bytes      int64   `json:"bytes"`
	States     int     `json:"states"`
	Containers int     `json:"containers"`
	Leaves     int     `json:"leaves,omitempty"`
	MaxRSSKB   int64   `json:"max_rss_kb"`
}

func main() {
	sink := flag.String("sink", "count", "count, trace or micro")
	slices := flag.Int("slices", 100, "time slices of the microscopic model")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: pajeread [-sink count|trace|micro] [-slices n] trace.paje")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	path := flag.Arg(0)
	st, err := os.Stat(path)
	if err != nil {
		fail(err)
	}
	r := result{Sink: *sink, Bytes: st.Size()}
	began := time.Now()
	switch *sink {
	case "count":
		var c counter
		if err := paje.Read(path, &c, trace.ReadOptions{}); err != nil {
			fail(err)
		}
		r.States, r.Containers = c.states, c.containers
	case "trace", "micro":
		t := trace.New(path)
		if err := paje.Read(path, t, trace.ReadOptions{}); err != nil {
			fail(err)
		}
		r.States, r.Containers = len(t.States), len(t.Containers)-1
		if *sink == "micro" {
			m, err := micro.Build(t, micro.Options{Slices: *slices, Depth: micro.Innermost})
			if err != nil {
				fail(err)
			}
			r.Leaves = m.NumLeaves()
		}
	default:
		flag.Usage()
		os.Exit(2)
	}
	r.Seconds = time.Since(began).Seconds()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		r.MaxRSSKB = ru.Maxrss
	}
	json.NewEncoder(os.Stdout).Encode(r)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "pajeread:", err)
	os.Exit(1)
}
