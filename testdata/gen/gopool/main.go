// Command pool writes an execution trace of a small worker pool: a
// producer feeds jobs to workers that hash them, a collector sums the
// results, and a watcher goroutine started before the trace waits on a
// channel the whole time (it never runs while tracing).
package main

import (
	"crypto/sha256"
	"flag"
	"log"
	"os"
	"runtime/trace"
	"sync"
)

func watcher(stop <-chan struct{}) { <-stop }

func producer(jobs chan<- int, n int) {
	for i := 0; i < n; i++ {
		jobs <- i
	}
	close(jobs)
}

func worker(jobs <-chan int, out chan<- byte, size int) {
	buf := make([]byte, size)
	for j := range jobs {
		buf[0] = byte(j)
		var sum [32]byte
		for k := 0; k < 20; k++ {
			sum = sha256.Sum256(buf)
			copy(buf, sum[:])
		}
		out <- sum[0]
	}
}

func collector(out <-chan byte, done chan<- int) {
	t := 0
	for b := range out {
		t += int(b)
	}
	done <- t
}

func main() {
	workers := flag.Int("workers", 4, "worker goroutines")
	jobs := flag.Int("jobs", 400, "jobs")
	size := flag.Int("size", 4096, "bytes hashed per round")
	path := flag.String("o", "pool.trace", "trace file")
	flag.Parse()
	stop := make(chan struct{})
	go watcher(stop)
	f, err := os.Create(*path)
	if err != nil {
		log.Fatal(err)
	}
	if err := trace.Start(f); err != nil {
		log.Fatal(err)
	}
	jc, out, done := make(chan int), make(chan byte), make(chan int)
	go producer(jc, *jobs)
	var wg sync.WaitGroup
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func() { defer wg.Done(); worker(jc, out, *size) }()
	}
	go collector(out, done)
	wg.Wait()
	close(out)
	<-done
	trace.Stop()
	close(stop)
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
