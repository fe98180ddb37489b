package mpi_test

import (
	"fmt"
	"os"

	"github.com/macroscope-hpc/macroscope/core/views/mpi"
)

// A spool keeps what an analysis gathers while a trace streams; past the
// spill's memory, its chunks go to a temporary file, and come back in
// order.
func ExampleSpool() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	spill := &mpi.Spill{Dir: dir, Memory: 1024} // bytes kept in memory
	defer spill.Close()
	type link struct{ from, to, at int64 }
	links := mpi.NewSpool[link](spill)
	for i := range int64(100_000) {
		links.Append(link{i % 64, (i + 1) % 64, 10 * i})
	}
	var last link
	links.Drain(func(l *link) { last = *l })
	files, _ := os.ReadDir(dir)
	fmt.Println(last, spill.Spilled() > 0, len(files), spill.Err())
	// Output: {31 32 999990} true 0 <nil>
}

// An analysis that keeps, of each chunk of a spool, where it begins finds
// the chunks' sizes without reading them back.
func ExampleSpool_ChunkLen() {
	spill := &mpi.Spill{Memory: -1} // all in memory
	defer spill.Close()
	ends := mpi.NewSpool[int64](spill)
	for i := range int64(1000) {
		ends.Append(i)
	}
	first := 0
	for k := range ends.Chunks() {
		fmt.Print(first, " ")
		first += ends.ChunkLen(k)
	}
	fmt.Println(first == ends.Len())
	// Output: 0 64 192 448 960 true
}

// A slice of records goes into a spool in one call, in the chunks that
// appending them one by one would fill.
func ExampleSpool_AppendSlice() {
	spill := &mpi.Spill{Memory: -1} // all in memory
	defer spill.Close()
	ends := mpi.NewSpool[int64](spill)
	ends.AppendSlice([]int64{3, 1, 4, 1, 5, 9, 2, 6})
	ends.AppendSlice(make([]int64, 100))
	fmt.Println(ends.Len(), ends.Chunks(), ends.ChunkLen(0), ends.Take()[:8])
	// Output: 108 2 64 [3 1 4 1 5 9 2 6]
}
