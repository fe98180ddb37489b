// Command gotraceparse parses a Go execution trace with the Go project's
// own parser (golang.org/x/exp/trace, the exported copy of the
// internal/trace package `go tool trace` reads with) and does nothing else:
// every event is read, none is kept. bench/table.py times it beside
// Macroscope's gotrace reader on the same file, as the peer of that row.
//
//	gotraceparse file.trace
//
// It prints the number of events.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	xtrace "golang.org/x/exp/trace"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gotraceparse file.trace")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fail(err)
	}
	defer f.Close()
	r, err := xtrace.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		fail(err)
	}
	n := 0
	for {
		_, err := r.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			fail(err)
		}
		n++
	}
	fmt.Println(n, "events")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gotraceparse:", err)
	os.Exit(1)
}
