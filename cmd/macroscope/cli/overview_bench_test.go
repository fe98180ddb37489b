package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkOverview runs 'macroscope overview' end to end, from the trace
// file to the figure and the table of aggregates (the model while reading,
// the recommended level, the partition, the figure): synthetic traces of
// 1,000 and 100,000 resources x 100 slices ('macroscope synth': sites of
// clusters of machines of cores), and the Nsight Systems export of a 2-GPU
// training step of the shared corpus. The targets: 2 s for 1,000
// resources, 20 s for 100,000. bench/overview.py times the same cases as
// whole processes against another build.
func BenchmarkOverview(b *testing.B) {
	cases := []struct {
		name  string
		synth []int // sites, clusters, machines, cores, events
		path  string
	}{
		{name: "synth-1000", synth: []int{2, 5, 10, 10, 1_000_000}},
		{name: "synth-100000", synth: []int{4, 5, 50, 100, 2_000_000}},
		{name: "nsight", path: filepath.Join("..", "..", "..", "..", "shared", "traces", "nsys", "mfu_2gpu_before.sqlite")},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			path := c.path
			if c.synth != nil {
				path = filepath.Join(dir, c.name+".trace")
				args := []string{"synth"}
				for i, flag := range []string{"--sites", "--clusters", "--machines", "--cores", "--events"} {
					args = append(args, flag, strconv.Itoa(c.synth[i]))
				}
				if code, _, errOut := runCLI(append(args, path)...); code != 0 {
					b.Fatalf("synth: %s", errOut)
				}
			} else if _, err := os.Stat(path); err != nil {
				b.Skipf("the shared corpus is not here: %v", err)
			}
			b.ResetTimer()
			for b.Loop() {
				if code, _, errOut := runCLI("overview", "--out", dir, path); code != 0 {
					b.Fatalf("overview: %s", errOut)
				}
			}
		})
	}
}
