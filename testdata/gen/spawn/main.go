// Command spawn runs a divide-and-conquer program with a goroutine per
// call, quick sort or Fibonacci, and records a runtime/trace execution
// trace of it: the goroutine creation tree is the program's call tree,
// the spawn tree Tick and Park's kaleidoscope draws.
//
// Every call spawns its two children and waits for them, at most -limit
// of them at once (a semaphore per call, as errgroup's SetLimit does).
// With -limit 2 a call spawns both children at once: the runtime queues
// runnable goroutines first in, first out, so the calls run level by
// level, breadth first, on one processor as on several. With -limit 1 a
// call spawns its second child only once the first has returned: the
// calls run one subtree after another, depth first, as the goals of a
// single processor taken off a stack.
//
// Usage:
//
//	go run ./testdata/gen/spawn -prog qsort -n 100 -limit 1 -o qsort-depth.trace
//	go run ./testdata/gen/spawn -prog fib -n 9 -limit 2 -procs 2 -o fib-breadth.trace
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/trace"
	"slices"
	"sync"
	"sync/atomic"
)

// work spins for about n microseconds' worth of arithmetic, so that each
// call takes a measurable time and idle processors get to take children.
func work(n int) int {
	x := 0
	for i := range n * 200 {
		x += i * i % 7
	}
	return x
}

// sink keeps the spinning from being optimised away; calls add to it
// from several goroutines.
var sink atomic.Int64

// limit is the number of children a call runs at once.
var limit = 2

// both runs f(0) and f(1) in two goroutines, at most limit at once, and
// waits for them.
func both(f func(i int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, limit)
	for i := range 2 {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(i)
			<-sem
		}()
	}
	wg.Wait()
}

// qsort sorts a in place: it partitions around the last element, then
// sorts both sides in two goroutines (in a region named "qsort").
func qsort(ctx context.Context, a []int) {
	if len(a) < 2 {
		return
	}
	sink.Add(int64(work(len(a))))
	p := a[len(a)-1]
	i := 0
	for j := range a[:len(a)-1] {
		if a[j] < p {
			a[i], a[j] = a[j], a[i]
			i++
		}
	}
	a[i], a[len(a)-1] = a[len(a)-1], a[i]
	trace.WithRegion(ctx, "qsort", func() {
		both(func(k int) {
			if k == 0 {
				qsort(ctx, a[:i])
			} else {
				qsort(ctx, a[i+1:])
			}
		})
	})
}

// fib returns fib(n), computing fib(n-1) and fib(n-2) in two goroutines.
func fib(ctx context.Context, n int) int {
	sink.Add(int64(work(20)))
	if n < 2 {
		return n
	}
	var a, b int
	trace.WithRegion(ctx, "fib", func() {
		both(func(k int) {
			if k == 0 {
				a = fib(ctx, n-1)
			} else {
				b = fib(ctx, n-2)
			}
		})
	})
	return a + b
}

func main() {
	prog := flag.String("prog", "qsort", "qsort or fib")
	n := flag.Int("n", 100, "qsort: number of values to sort; fib: which Fibonacci number")
	procs := flag.Int("procs", 1, "processors (GOMAXPROCS)")
	flag.IntVar(&limit, "limit", 2, "children a call runs at once: 1 (depth first) or 2 (breadth first)")
	seed := flag.Uint64("seed", 1, "qsort: seed of the values")
	path := flag.String("o", "spawn.trace", "trace file to write")
	flag.Parse()
	if limit < 1 || limit > 2 {
		log.Fatalf("-limit %d: want 1 or 2", limit)
	}
	runtime.GOMAXPROCS(*procs)
	// No garbage collection: the runtime's GC workers, created by
	// whichever goroutine starts a cycle, would join the spawn tree.
	debug.SetGCPercent(-1)
	f, err := os.Create(*path)
	if err != nil {
		log.Fatal(err)
	}
	if err := trace.Start(f); err != nil {
		log.Fatal(err)
	}
	ctx, task := trace.NewTask(context.Background(), *prog)
	done := make(chan string)
	switch *prog {
	case "qsort":
		rng := rand.New(rand.NewPCG(*seed, 0))
		a := rng.Perm(*n)
		go func() { qsort(ctx, a); done <- fmt.Sprint(slices.IsSorted(a)) }()
	case "fib":
		go func() { done <- fmt.Sprint(fib(ctx, *n)) }()
	default:
		log.Fatalf("unknown program %q (qsort or fib)", *prog)
	}
	r := <-done
	task.End()
	trace.Stop()
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(r)
}
