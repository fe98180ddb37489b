// Command fib computes a Fibonacci number by divide and conquer, one
// goroutine per call, and records a runtime/trace execution trace of it:
// the goroutine creation tree is the call tree of fib, a binary tree whose
// shape the tests know exactly.
//
// Usage: go run fib.go -n 10 -o fib.trace
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime/debug"
	"runtime/trace"
)

// fib sends fib(n) on out. For n >= 2 it spawns two goroutines, one for
// fib(n-1) and one for fib(n-2), inside a region named "fib", and logs the
// result under the category "result".
func fib(ctx context.Context, n int, out chan<- int) {
	if n < 2 {
		out <- n
		return
	}
	var sum int
	trace.WithRegion(ctx, "fib", func() {
		c := make(chan int, 2)
		go fib(ctx, n-1, c)
		go fib(ctx, n-2, c)
		a, b := <-c, <-c
		trace.WithRegion(ctx, "add", func() { sum = a + b })
	})
	trace.Log(ctx, "result", fmt.Sprint(n, " ", sum))
	out <- sum
}

func main() {
	n := flag.Int("n", 10, "which Fibonacci number to compute")
	path := flag.String("o", "fib.trace", "trace file to write")
	flag.Parse()
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
	ctx, task := trace.NewTask(context.Background(), "fib")
	out := make(chan int)
	go fib(ctx, *n, out)
	r := <-out
	task.End()
	trace.Stop()
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(r)
}
