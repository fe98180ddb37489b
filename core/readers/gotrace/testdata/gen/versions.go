// Command versions records a small runtime/trace execution trace with
// what the reader models: 4 goroutines, each in a task with two regions
// and a log, a buffered channel, a mutex, a file read (a syscall), an
// allocation and a forced GC. It builds with every Go release from 1.11 on
// (no generics, no newer API), so the same program gives the trace of each
// release's format: testdata/versions/go1.NN.trace.
//
// Usage, with the toolchain of the release (Go 1.21 and later fetch it
// themselves):
//
//	GOTOOLCHAIN=go1.21.13 go run versions.go go1.21.trace
//
// An older toolchain runs the same way; where its module mode stumbles on
// this directory, build it in GOPATH mode with its own go command:
//
//	GO111MODULE=off $(GOTOOLCHAIN=go1.19.13 go env GOROOT)/bin/go build -o v versions.go
package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/trace"
	"sync"
)

func work(ctx context.Context, id int, ch chan int, mu *sync.Mutex, wg *sync.WaitGroup) {
	defer wg.Done()
	ctx, task := trace.NewTask(ctx, "worker")
	defer task.End()
	trace.WithRegion(ctx, "compute", func() {
		s := 0
		for i := 0; i < 300000; i++ {
			s += i % (id + 1)
		}
		trace.Log(ctx, "sum", fmt.Sprint(s))
	})
	trace.WithRegion(ctx, "io", func() {
		b, _ := os.ReadFile("/proc/self/status")
		_ = b
		mu.Lock()
		ch <- id
		mu.Unlock()
	})
	_ = make([]byte, 1<<20)
}

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := trace.Start(f); err != nil {
		panic(err)
	}
	ctx := context.Background()
	ch := make(chan int, 4)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go work(ctx, i, ch, &mu, &wg)
	}
	wg.Wait()
	close(ch)
	for range ch {
	}
	runtime.GC()
	trace.Stop()
	f.Close()
}
