package nsys

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/nesting"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// BenchmarkRead reads the largest export of the corpus (about 35,000
// rows of activity) into memory.
func BenchmarkRead(b *testing.B) {
	path := filepath.Join("..", "..", "..", "..", "shared", "traces", "nsys", "mfu_2gpu_before.sqlite")
	if _, err := os.Stat(path); err != nil {
		b.Skip("the shared trace corpus is absent")
	}
	for b.Loop() {
		if err := Read(path, trace.New(), trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNest nests a group of a million spans and puts them in the
// order of their delivery: the reader's nesting alone.
func BenchmarkNest(b *testing.B) {
	src := readertest.CallStacks(1<<20, 1)
	base := make([]span, len(src))
	for i, s := range src {
		base[i] = span{start: int64(s.Start), end: int64(s.End), seq: int32(i)}
	}
	sp := make([]span, len(base))
	byRank := make([]int32, len(base))
	t := nesting.Tracker{KeepCompletion: true}
	for b.Loop() {
		copy(sp, base)
		if _, ok := nest(&t, sp); !ok {
			b.Fatal("too many lanes")
		}
		for i := range sp { // as emitter.states does
			byRank[sp[i].delivery] = int32(i)
		}
	}
}
