package commmatrix

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
)

const corpus = "../../../../shared/traces/"

// rank is pipit's number of a process: the number ending its name ("MPI
// Rank 3").
var rank = regexp.MustCompile(`(\d+)$`)

// TestPipit compares the matrices of messages and bytes between ranks
// with pipit's comm_matrix, cell by cell.
func TestPipit(t *testing.T) {
	const casita = "../../../testdata/casita/" // Score-P traces of CASITA's tests
	for _, c := range []struct{ dir, trace string }{
		{"ping-pong-otf2", corpus + "pipit/tests/data/ping-pong-otf2/traces.otf2"},
		{"stencil4d-32", corpus + "tracer-stencil4d/stencil4d-otf/traces-32/traces.otf2"},
		{"stencil4d-64", corpus + "tracer-stencil4d/stencil4d-otf/traces-64/traces.otf2"},
		{"casita-10_scorep_mpi_tags", casita + "10_scorep_mpi_tags/traces.otf2"},
		{"casita-4_mpi_ls_barr", casita + "4_mpi_ls_barr/traces.otf2"},
	} {
		t.Run(c.dir, func(t *testing.T) {
			if _, err := os.Stat(c.trace); err != nil {
				t.Skipf("trace not available: %v", err)
			}
			tr, err := formats.ReadFile(c.trace, "otf2")
			if err != nil {
				t.Fatal(err)
			}
			r, err := Compute(tr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := map[[2]string][2]float64{}
			for _, row := range r.Rows {
				if row.Type != "MPI message" || row.Sized != row.Count {
					t.Fatalf("row %+v: want MPI messages, all sized", row)
				}
				k := [2]string{rank.FindString(row.Source), rank.FindString(row.Destination)}
				got[k] = [2]float64{float64(row.Count), row.Bytes}
			}
			cells := 0
			for v, file := range []string{"comm_matrix_count.csv", "comm_matrix_size.csv"} {
				f, err := os.Open(filepath.Join("testdata", "pipit", c.dir, file))
				if err != nil {
					t.Fatal(err)
				}
				recs, err := csv.NewReader(f).ReadAll()
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
				for i, rec := range recs {
					for j, s := range rec {
						want, _ := strconv.ParseFloat(s, 64)
						if g := got[[2]string{strconv.Itoa(i), strconv.Itoa(j)}][v]; g != want {
							t.Errorf("%s: %d -> %d: %v, pipit %v", file, i, j, g, want)
						}
						if want != 0 {
							cells++
						}
					}
				}
			}
			if cells != 2*len(got) {
				t.Errorf("pipit has %d non-zero cells, we have %d pairs", cells/2, len(got))
			}
		})
	}
}
