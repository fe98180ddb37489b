package nsys

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// BenchmarkRead reads the largest export of the corpus (about 35,000
// rows of activity) into memory.
func BenchmarkRead(b *testing.B) {
	path := filepath.Join("..", "..", "..", "..", "..", "shared", "traces", "nsys", "mfu_2gpu_before.sqlite")
	if _, err := os.Stat(path); err != nil {
		b.Skip("the shared trace corpus is absent")
	}
	for b.Loop() {
		if err := Read(path, trace.New(), trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
