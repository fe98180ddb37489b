// Command threegen records a runtime/trace execution trace of 2.5 s of a
// program that starts a goroutine every 20 ms: the runtime starts a new
// generation every second, so the trace has three, and the tests cut it
// to see a trace broken after its first generations read.
//
// Usage: go run threegen.go threegen.trace
package main

import (
	"os"
	"runtime/trace"
	"time"
)

func main() {
	f, _ := os.Create(os.Args[1])
	trace.Start(f)
	end := time.Now().Add(2500 * time.Millisecond)
	for time.Now().Before(end) {
		go func() { time.Sleep(time.Millisecond) }()
		time.Sleep(20 * time.Millisecond)
	}
	trace.Stop()
	f.Close()
}
