package nsys

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

func TestExplore(t *testing.T) {
	for _, f := range []string{"nsys/h100_2gpu_1s.sqlite", "nsys/mfu_2gpu_before.sqlite", "pipit/hist/data/cloverleaf-nsys/perlmutter-cloverleaf-cuda.sqlite", "pipit/hist/data/saxpy-mpi-cuda_nsys_perlmutter0.sqlite"} {
		path := filepath.Join("..", "..", "..", "..", "shared", "traces", f)
		tr := trace.New()
		notes := &trace.Notes{}
		err := Read(path, tr, trace.ReadOptions{Notes: notes})
		fmt.Println(f, err, len(tr.Containers), len(tr.States), len(tr.Links), len(tr.Events), tr.Start, tr.End)
		for i, c := range tr.Containers {
			if i < 40 {
				fmt.Println("  ", i, tr.ContainerPath(int32(i), "/"), c.Alias, tr.TypeName(c.Type))
			}
		}
		cnt := map[string]int{}
		for _, s := range tr.States {
			cnt[tr.TypeName(s.Type)]++
		}
		fmt.Println(cnt)
		for _, m := range notes.Messages() {
			fmt.Println("   note:", m)
		}
	}
}
