// Command gotracegen writes a Go execution trace of about a given size,
// for bench/table.py: the program traces itself (runtime/trace) while
// goroutines exchange messages over channels, wait on timers and mutexes,
// allocate (so the collector runs) and open user tasks and regions, until
// the trace file has reached the size asked for.
//
//	gotracegen -size 150000000 out.trace
//
// Which events land in the trace depends on the scheduler, so two runs do
// not write the same bytes; the mix of events is the same.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/trace"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	size := flag.Int64("size", 150_000_000, "bytes of trace to write (approximately)")
	workers := flag.Int("workers", 64, "goroutines exchanging messages")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: gotracegen [-size bytes] [-workers n] out.trace")
		os.Exit(2)
	}
	f, err := os.Create(flag.Arg(0))
	if err != nil {
		fail(err)
	}
	if err := trace.Start(f); err != nil {
		fail(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	var mu sync.Mutex
	shared := 0
	ring := make([]chan int, *workers)
	for i := range ring {
		ring[i] = make(chan int, 1)
	}
	sink := make([][]byte, 256)
	for w := range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, task := trace.NewTask(context.Background(), "worker")
			defer task.End()
			next := ring[(w+1)%len(ring)]
			for i := 0; !stop.Load(); i++ {
				trace.WithRegion(ctx, "step", func() {
					select { // pass a token along the ring, or give up after a while
					case next <- i:
					case <-time.After(50 * time.Microsecond):
					}
					select {
					case <-ring[w]:
					default:
					}
					mu.Lock()
					shared++
					sink[(w*31+i)%len(sink)] = make([]byte, 512+i%4096)
					mu.Unlock()
				})
				if i%64 == 0 {
					trace.Log(ctx, "progress", "step")
					wg.Add(1)
					go func() { wg.Done() }() // short-lived goroutines: creations and exits
				}
			}
		}()
	}
	for {
		time.Sleep(20 * time.Millisecond)
		st, err := f.Stat()
		if err != nil {
			fail(err)
		}
		if st.Size() >= *size {
			break
		}
	}
	stop.Store(true)
	wg.Wait()
	trace.Stop()
	if err := f.Close(); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gotracegen:", err)
	os.Exit(1)
}
