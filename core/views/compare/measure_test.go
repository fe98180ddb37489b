package compare

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// runLevelInput builds the model of runs (values[r][s][t][x]) with the run
// under each resource, for the engine.
func runLevelInput(values [][][][]float64) (aggregate.Input, [][]int32) {
	R, S, T, X := len(values), len(values[0]), len(values[0][0]), len(values[0][0][0])
	b := hier.NewBuilder("root")
	ids := make([][]int, S)
	resIDs := make([]int, S)
	for s := 0; s < S; s++ {
		resIDs[s] = b.Add(0, "res")
		ids[s] = make([]int, R)
		for r := 0; r < R; r++ {
			ids[s][r] = b.Add(resIDs[s], "run")
		}
	}
	tree, newID := b.Build()
	vals := make([]float64, 0, R*S*T*X)
	for s := 0; s < S; s++ {
		for r := 0; r < R; r++ {
			for t := 0; t < T; t++ {
				vals = append(vals, values[r][s][t]...)
			}
		}
	}
	nodes := make([][]int32, S)
	for s := range nodes {
		nodes[s] = []int32{newID[resIDs[s]]}
		for r := 0; r < R; r++ {
			nodes[s] = append(nodes[s], newID[ids[s][r]])
		}
	}
	return aggregate.Input{Tree: tree, Slices: T, States: X, Values: vals}, nodes
}

// TestClosedForms checks the test vectors of docs/compare.md (two runs,
// one resource, raw measures): the seed's loss and gain of the block of
// both runs, the divergence and the mass divergence.
func TestClosedForms(t *testing.T) {
	cases := []struct {
		name             string
		a, b             [][]float64 // cells by slice
		loss, gain       float64
		js, kl, cellDiv  float64
		checkGain, cells bool
	}{
		{"disjoint", [][]float64{{1, 0}}, [][]float64{{0, 1}}, 2, 0, 1, 0, 1, true, true},
		{"shifted", [][]float64{{0.5, 0.5}}, [][]float64{{0.9, 0.1}}, 0.293586205, 1.706413795, 0.146793102, 0, 0.146793102, true, true},
		{"incomplete", [][]float64{{0.5, 0}}, [][]float64{{0.5, 0.5}}, 0.5, 1.0, 0.251629167, 0.081704166, 0, true, false},
		{"completed", [][]float64{{0.5, 0, 0.5}}, [][]float64{{0.5, 0.5, 0}}, 1.0, 1.0, 0.5, 0, 0.5, true, true},
		{"timing only", [][]float64{{1, 0}, {0, 1}}, [][]float64{{0.5, 0.5}, {0.5, 0.5}}, 2, 0, 0, 0, 0.311278124, false, true},
	}
	for _, c := range cases {
		in, nodes := runLevelInput([][][][]float64{{c.a}, {c.b}})
		e, err := aggregate.New(aggregate.KindSpatiotemporal, in, aggregate.Options{})
		if err != nil {
			t.Fatal(err)
		}
		T := len(c.a)
		gain, loss := e.PartQuality(nodes[0][0], 0, T-1)
		if !near(loss, c.loss, 1e-9) || (c.checkGain && !near(gain, c.gain, 1e-9)) {
			t.Errorf("%s: loss %.9f gain %.9f, want %.9f %.9f", c.name, loss, gain, c.loss, c.gain)
		}
		sa, sb := make([]float64, len(c.a[0])), make([]float64, len(c.a[0]))
		var flatA, flatB []float64
		for k := range c.a {
			for x := range c.a[k] {
				sa[x] += c.a[k][x]
				sb[x] += c.b[k][x]
			}
			flatA = append(flatA, c.a[k]...)
			flatB = append(flatB, c.b[k]...)
		}
		d := Diverge([][]float64{sa, sb}, []float64{float64(T), float64(T)})
		if !near(d.JS, c.js, 1e-9) || !near(d.MassKL, c.kl, 1e-9) {
			t.Errorf("%s: JS %.9f KL %.9f, want %.9f %.9f", c.name, d.JS, d.MassKL, c.js, c.kl)
		}
		if c.cells {
			if got := CellDivergence([][]float64{flatA, flatB}, len(c.a[0])); !near(got, c.cellDiv, 1e-9) {
				t.Errorf("%s: cell divergence %.9f, want %.9f", c.name, got, c.cellDiv)
			}
		}
		// The theorem: the loss of the block is the runs' own losses plus
		// M (JS + KL).
		_, la := e.PartQuality(nodes[0][1], 0, T-1)
		_, lb := e.PartQuality(nodes[0][2], 0, T-1)
		if want := la + lb + d.Score(); !near(loss, want, 1e-9) {
			t.Errorf("%s: loss %.9f, own losses + M(JS+KL) = %.9f", c.name, loss, want)
		}
	}
	// Three runs: (1,0), (0,1), (0.5,0.5).
	d := Diverge([][]float64{{1, 0}, {0, 1}, {0.5, 0.5}}, []float64{1, 1, 1})
	if !near(d.JS, 2.0/3, 1e-9) || !near(d.Score(), 2, 1e-9) {
		t.Errorf("three runs: JS %.9f score %.9f, want 2/3 and 2", d.JS, d.Score())
	}
}

// TestMergeThreshold checks section 1.3: with complete cells and raw
// measures, the runs of a one-cell block are merged iff JS <= p log2 R.
func TestMergeThreshold(t *testing.T) {
	in, nodes := runLevelInput([][][][]float64{{{{0.5, 0.5}}}, {{{0.9, 0.1}}}})
	e, err := aggregate.New(aggregate.KindSpatiotemporal, in, aggregate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p     float64
		parts int
	}{{0.14, 2}, {0.1467, 2}, {0.1469, 1}, {0.15, 1}} {
		part, err := e.Solve(c.p)
		if err != nil {
			t.Fatal(err)
		}
		if len(part.Parts) != c.parts {
			t.Errorf("p = %v: %d parts, want %d", c.p, len(part.Parts), c.parts)
		}
		// One part: the resource with both runs (or the root, the same block).
		if c.parts == 1 && part.Parts[0].Node != nodes[0][0] && part.Parts[0].Node != 0 {
			t.Errorf("p = %v: the part is node %d, want the resource", c.p, part.Parts[0].Node)
		}
	}
}

// TestLossIdentity checks the theorem against the engine's own loss and
// gain on random incomplete cells: for every resource and interval,
// loss(A) = sum_r loss(A_r) + M (JS + KL(pi||w)) and gain(A) = sum_r
// gain(A_r) + M (H(pi) - JS).
func TestLossIdentity(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, R := range []int{2, 3, 5} {
		const S, T, X = 3, 5, 3
		values := make([][][][]float64, R)
		for r := range values {
			values[r] = make([][][]float64, S)
			for s := range values[r] {
				values[r][s] = make([][]float64, T)
				for k := range values[r][s] {
					cell := make([]float64, X)
					left := 1.0
					for x := range cell {
						if rng.IntN(4) == 0 {
							continue // some zeros
						}
						cell[x] = left * rng.Float64()
						left -= cell[x]
					}
					values[r][s][k] = cell
				}
			}
		}
		in, nodes := runLevelInput(values)
		e, err := aggregate.New(aggregate.KindSpatiotemporal, in, aggregate.Options{})
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for s := 0; s < S; s++ {
			for i := 0; i < T; i++ {
				for j := i; j < T; j++ {
					gain, loss := e.PartQuality(nodes[s][0], i, j)
					sums := make([][]float64, R)
					cells := make([]float64, R)
					ownLoss, ownGain := 0.0, 0.0
					for r := 0; r < R; r++ {
						g, l := e.PartQuality(nodes[s][r+1], i, j)
						ownLoss += l
						ownGain += g
						sums[r] = make([]float64, X)
						for k := i; k <= j; k++ {
							for x := range sums[r] {
								sums[r][x] += values[r][s][k][x]
							}
						}
						cells[r] = float64(j - i + 1)
					}
					d := Diverge(sums, cells)
					masses := make([]float64, R)
					for r := range sums {
						for _, v := range sums[r] {
							masses[r] += v
						}
					}
					hpi := Entropy(masses)
					worst = math.Max(worst, math.Abs(loss-(ownLoss+d.Score())))
					worst = math.Max(worst, math.Abs(gain-(ownGain+d.Mass*(hpi-d.JS))))
				}
			}
		}
		if worst > 1e-12 {
			t.Errorf("%d runs: identity off by %g bits", R, worst)
		}
	}
}

// TestDivergenceBruteForce checks Diverge and CellDivergence against
// their definitions, written out naively: JS = H(pooled) - sum pi H(P_r).
func TestDivergenceBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 50; trial++ {
		R, n, X := 2+rng.IntN(3), 1+rng.IntN(4), 2+rng.IntN(3)
		cells := make([][]float64, R)
		sums := make([][]float64, R)
		for r := range cells {
			sums[r] = make([]float64, X)
			for i := 0; i < n*X; i++ {
				v := rng.Float64()
				cells[r] = append(cells[r], v)
				sums[r][i%X] += v
			}
		}
		masses := make([]float64, R)
		M := 0.0
		pooled := make([]float64, X)
		for r := range sums {
			for x, v := range sums[r] {
				masses[r] += v
				pooled[x] += v
			}
			M += masses[r]
		}
		want := Entropy(pooled)
		for r := range sums {
			want -= masses[r] / M * Entropy(sums[r])
		}
		c := make([]float64, R)
		for r := range c {
			c[r] = float64(n)
		}
		if got := Diverge(sums, c).JS; !near(got, want, 1e-12) {
			t.Fatalf("JS %v, want %v", got, want)
		}
		// Over (position, state): the same definition on the flat cells.
		pooledCells := make([]float64, n*X)
		for r := range cells {
			for i, v := range cells[r] {
				pooledCells[i] += v
			}
		}
		wantCells := Entropy(pooledCells)
		for r := range cells {
			wantCells -= masses[r] / M * Entropy(cells[r])
		}
		if got := CellDivergence(cells, X); !near(got, wantCells, 1e-12) || got < want-1e-12 {
			t.Fatalf("cell divergence %v, want %v (>= %v)", got, wantCells, want)
		}
	}
}

func TestGammaTail(t *testing.T) {
	// Q(1, x) = exp(-x); Q(0.5, x) = erfc(sqrt(x)).
	for _, x := range []float64{0.01, 0.5, 1, 3, 10, 40} {
		if got, want := gammaQ(1, x), math.Exp(-x); !near(got, want, 1e-12*math.Max(1, want)) && math.Abs(got-want)/want > 1e-10 {
			t.Errorf("Q(1, %v) = %v, want %v", x, got, want)
		}
		if got, want := gammaQ(0.5, x), math.Erfc(math.Sqrt(x)); math.Abs(got-want) > 1e-12 && math.Abs(got-want)/want > 1e-9 {
			t.Errorf("Q(0.5, %v) = %v, want %v", x, got, want)
		}
	}
}
