package pjdump

import (
	"os"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// BenchmarkReadG5K reads pj_dump's output for g5k.trace: 18,924 lines,
// 4,797 containers, 7,812 variables and 6,314 links.
func BenchmarkReadG5K(b *testing.B) {
	path := corpus + "/pajeng/oracles/027_pj_dump_g5k_trace.out"
	st, err := os.Stat(path)
	if err != nil {
		b.Skipf("oracle not available: %v", err)
	}
	b.SetBytes(st.Size())
	for b.Loop() {
		if err := Read(path, trace.New(), trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadStarVZ reads StarVZ's qr_trace directory: 115,000 rows in
// 7 gzipped files and its entity hierarchy.
func BenchmarkReadStarVZ(b *testing.B) {
	files, err := dirFiles(qrTrace)
	if err != nil || len(files) == 0 {
		b.Skipf("StarVZ trace not available: %v", err)
	}
	var size int64
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			size += st.Size()
		}
	}
	b.SetBytes(size)
	for b.Loop() {
		if err := readFiles(files, trace.New(), readOptions{OnInverted: func(string, int) {}}); err != nil {
			b.Fatal(err)
		}
	}
}
