package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// swapBranches is the loop swapTwo replaced: a branch on each random bit,
// the difference of a swapped block added to the sums in memory. It is
// the reference swapTwo must equal, bit for bit.
func swapBranches(sums, runSums [][]float64, diff []float64, words []uint64, blocks int, rng *rand.Rand) {
	X := len(sums[0])
	S := lanes(X)
	copy(sums[0], runSums[0])
	copy(sums[1], runSums[1])
	var bits uint64
	for b := 0; b < blocks; b++ {
		if b%64 == 0 {
			bits = rng.Uint64()
		}
		if bits&1 == 1 {
			for x, v := range diff[b*S : b*S+X] {
				sums[0][x] += v
				sums[1][x] -= v
			}
		}
		bits >>= 1
	}
}

func TestSwapTwoIsTheBranchesLoop(t *testing.T) {
	gen := rand.New(rand.NewPCG(7, 7))
	for _, X := range []int{1, 2, 3, 4, 5, 7, 8, 9, 13} {
		for _, nb := range []int{1, 2, 63, 64, 65, 100, 128, 200, 256} {
			S := lanes(X)
			diff := make([]float64, nb*S)
			for b := 0; b < nb; b++ {
				for x := 0; x < X; x++ {
					// Differences of cells spanning magnitudes, some
					// exactly 0, so that rounding shows any change of order.
					switch gen.IntN(4) {
					case 0:
					case 1:
						diff[b*S+x] = gen.Float64() - 0.5
					default:
						diff[b*S+x] = (gen.Float64() - 0.5) * math.Pow(10, float64(gen.IntN(12)-6))
					}
				}
			}
			runSums := matrix(2, X)
			for r := range runSums {
				for x := range runSums[r] {
					runSums[r][x] = gen.Float64() * float64(nb)
				}
			}
			got, want := matrix(2, X), matrix(2, X)
			words := make([]uint64, (nb+63)/64)
			for seed := uint64(0); seed < 20; seed++ {
				r1 := rand.New(rand.NewPCG(seed, 3))
				r2 := rand.New(rand.NewPCG(seed, 3))
				swapTwo(got, runSums, diff, words, nb, r1)
				swapBranches(want, runSums, diff, nil, nb, r2)
				for r := range got {
					for x := range got[r] {
						if math.Float64bits(got[r][x]) != math.Float64bits(want[r][x]) {
							t.Fatalf("X=%d blocks=%d seed %d: run %d state %d: %v, the branches' loop %v", X, nb, seed, r, x, got[r][x], want[r][x])
						}
					}
				}
				// The same draws: the next permutation starts from the same state.
				if a, b := r1.Uint64(), r2.Uint64(); a != b {
					t.Fatalf("X=%d blocks=%d: the random source moved differently", X, nb)
				}
			}
		}
	}
}

// tableBits lists every number of a table, bit for bit (NaN included).
func tableBits(tab *Table) string {
	s := fmt.Sprintf("%v %d %d %x|", tab.Test.Method, tab.Test.Reported, tab.Test.Permutations, math.Float64bits(tab.Total))
	for _, d := range tab.Rows {
		s += fmt.Sprintf("%d %d %d %d %d|", d.Node, d.First, d.Last, d.Test.Permutations, d.OutlierRun)
		for _, v := range []float64{d.Score, d.ScoreShare, d.Divergence, d.CellDivergence, d.PresentScore, d.Outlier, d.OutlierScore,
			d.Test.Statistic, d.Test.Floor, d.Test.Excess, d.Test.PValue, d.Test.PMin, d.Test.OutlierStatistic,
			d.Test.OutlierFloor, d.Test.OutlierP, d.Test.PAdjusted, d.Test.OutlierPAdjusted} {
			s += fmt.Sprintf("%x ", math.Float64bits(v))
		}
	}
	return s
}

// TestDifferencesAsBefore compares whole tables, every row tested by
// blocks (some beyond 64 blocks, some of one), with swapTwo and with the
// loop it replaced: the same numbers, bit for bit, on any number of
// cores.
func TestDifferencesAsBefore(t *testing.T) {
	set := slowdownSet(t, 120, 12, 150, 0.02, false)
	rows, err := set.NodeRows([]Phase{{0, 149}, {10, 10}, {20, 99}})
	if err != nil {
		t.Fatal(err)
	}
	for _, opt := range []TestOptions{{Seed: 3}, {Block: 2, Seed: 5}, {MaxBlocks: 100, Permutations: 300}} {
		got, err := set.Differences(rows, TableOptions{Test: opt})
		if err != nil {
			t.Fatal(err)
		}
		swap = swapBranches
		want, err := set.Differences(rows, TableOptions{Test: opt})
		swap = swapTwo
		if err != nil {
			t.Fatal(err)
		}
		if got.Test.Method != "blocks" || got.Test.Permutations < 99 {
			t.Fatalf("%+v: the test is %+v", opt, got.Test)
		}
		if g, w := tableBits(got), tableBits(want); g != w {
			t.Fatalf("%+v (GOMAXPROCS %d): the table differs from the branches' loop's", opt, runtime.GOMAXPROCS(0))
		}
	}
}
