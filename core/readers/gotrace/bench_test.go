package gotrace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// BenchmarkRead reads the largest sample trace (Go 1.26, 0.9 MB, 217,000
// states) into memory.
func BenchmarkRead(b *testing.B) {
	path := filepath.Join(corpus, "generated-go1.26", "gc-stress.trace")
	st, err := os.Stat(path)
	if err != nil {
		b.Skipf("no %s", path)
	}
	b.SetBytes(st.Size())
	for b.Loop() {
		if err := read(path, trace.New(path), trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
