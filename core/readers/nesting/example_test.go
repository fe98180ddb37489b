package nesting_test

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/readers/nesting"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A reader nests the complete slices of a thread, in the order a profiler
// wrote them (as each call returned), and delivers them as they complete.
func Example() {
	type slice struct {
		name       string
		start, end trace.Time
		seq        int // order in the file
		at         nesting.Placement
	}
	thread := []slice{
		{name: "parse", start: 1, end: 3},
		{name: "flush", start: 5, end: 5},
		{name: "main", start: 0, end: 10},
		{name: "async", start: 8, end: 14}, // starts in main, ends after it
		{name: "wait", start: 11, end: 12},
	}
	for i := range thread {
		thread[i].seq = i
	}
	slices.SortFunc(thread, func(a, b slice) int {
		if c := nesting.Compare(a.start, a.end, b.start, b.end); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	t := nesting.Tracker{KeepCompletion: true}
	for i := range thread {
		s := &thread[i]
		at, ok := t.Place(s.start, s.end)
		if !ok {
			panic("not a call stack")
		}
		s.at = at
	}
	fmt.Println("lanes:", t.Lanes())
	for lane := range t.Lanes() {
		for _, i := range t.Completed(lane) {
			s := &thread[i]
			fmt.Printf("%-5s [%2d, %2d] lane %d depth %d order %d\n", s.name, s.start, s.end, s.at.Lane, s.at.Depth, s.at.Order)
		}
	}
	// Output:
	// lanes: 2
	// parse [ 1,  3] lane 0 depth 1 order 1
	// flush [ 5,  5] lane 0 depth 1 order 2
	// main  [ 0, 10] lane 0 depth 0 order 0
	// wait  [11, 12] lane 1 depth 1 order 1
	// async [ 8, 14] lane 1 depth 0 order 0
}

// Nest does a reader's loop over one thread's records: it places them
// and hands back their placement and the order of delivery.
func ExampleTracker_Nest() {
	type rec struct {
		start, end trace.Time
		at         nesting.Placement
	}
	// In the order of Compare: main, then what runs inside it.
	recs := []rec{{start: 0, end: 10}, {start: 1, end: 3}, {start: 5, end: 5}, {start: 8, end: 14}, {start: 11, end: 12}}
	var delivery []int
	var t nesting.Tracker
	lanes, ok := t.Nest(len(recs),
		func(i int) (trace.Time, trace.Time) { return recs[i].start, recs[i].end },
		func(i int, at nesting.Placement) { recs[i].at = at },
		func(i int) { delivery = append(delivery, i) })
	fmt.Println("lanes:", lanes, ok)
	for _, i := range delivery {
		fmt.Printf("[%2d, %2d] %+v\n", recs[i].start, recs[i].end, recs[i].at)
	}
	// Output:
	// lanes: 2 true
	// [ 1,  3] {Lane:0 Depth:1 Order:1}
	// [ 5,  5] {Lane:0 Depth:1 Order:2}
	// [ 0, 10] {Lane:0 Depth:0 Order:0}
	// [11, 12] {Lane:1 Depth:1 Order:1}
	// [ 8, 14] {Lane:1 Depth:0 Order:0}
}
