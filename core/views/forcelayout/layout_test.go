package forcelayout

import (
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// naiveForces is the textbook O(n^2) sum, written independently of the
// solver: Coulomb repulsion K2 qi qj / max(d,k)^2 between every pair and
// a spring K1 (d - k) along every edge.
func naiveForces(g Graph, x, y []float64, k, k1, k2 float64) (fx, fy []float64) {
	fx, fy = make([]float64, g.N), make([]float64, g.N)
	q := func(i int) float64 {
		if g.Charge == nil {
			return 1
		}
		return g.Charge[i]
	}
	for i := range g.N {
		for j := range g.N {
			if i == j {
				continue
			}
			dx, dy := x[i]-x[j], y[i]-y[j]
			d := math.Sqrt(dx*dx + dy*dy)
			if d == 0 {
				continue
			}
			c := math.Max(d, k)
			f := k2 * q(i) * q(j) / (c * c)
			fx[i] += f * dx / d
			fy[i] += f * dy / d
		}
	}
	for _, e := range g.Edges {
		i, j := e[0], e[1]
		dx, dy := x[j]-x[i], y[j]-y[i]
		d := math.Sqrt(dx*dx + dy*dy)
		f := k1 * (d - k)
		fx[i] += f * dx / d
		fy[i] += f * dy / d
		fx[j] -= f * dx / d
		fy[j] -= f * dy / d
	}
	return
}

// clustered returns n points in clusters of very different scales (dense
// blobs, a wide spread, points closer than k), a hard case for a tree.
func clustered(n int, seed uint64) (x, y []float64) {
	r := rand.New(rand.NewPCG(seed, 1))
	x, y = make([]float64, n), make([]float64, n)
	for i := range n {
		switch i % 4 {
		case 0:
			x[i], y[i] = r.NormFloat64()*0.3, r.NormFloat64()*0.3
		case 1:
			x[i], y[i] = 20+r.NormFloat64()*2, -5+r.NormFloat64()*2
		case 2:
			x[i], y[i] = (r.Float64()-0.5)*100, (r.Float64()-0.5)*100
		default:
			x[i], y[i] = -30+r.Float64()*1e-3, 40+r.Float64()*1e-3
		}
	}
	return
}

func randomGraph(n, m int, seed uint64, charged bool) Graph {
	r := rand.New(rand.NewPCG(seed, 2))
	g := Graph{N: n}
	for len(g.Edges) < m {
		a, b := int32(r.IntN(n)), int32(r.IntN(n))
		if a != b {
			g.Edges = append(g.Edges, [2]int32{a, b})
		}
	}
	if charged {
		g.Charge = make([]float64, n)
		for i := range g.Charge {
			g.Charge[i] = 1 + float64(r.IntN(50))
		}
	}
	return g
}

func maxAbs(a, b []float64) float64 {
	m := 0.0
	for i := range a {
		m = math.Max(m, math.Max(math.Abs(a[i]), math.Abs(b[i])))
	}
	return m
}

// With theta = 0 no cell is approximated: the tree gives the exact forces,
// up to the order of the sums.
func TestThetaZeroIsExact(t *testing.T) {
	for _, charged := range []bool{false, true} {
		g := randomGraph(600, 900, 7, charged)
		x, y := clustered(g.N, 3)
		wx, wy := naiveForces(g, x, y, 1, 0.06, 0.024)
		scale := maxAbs(wx, wy)
		for _, p := range []Params{{ExactTheta: true}, {Exact: true}} {
			fx, fy, err := Forces(g, x, y, p)
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for i := range fx {
				worst = math.Max(worst, math.Hypot(fx[i]-wx[i], fy[i]-wy[i]))
			}
			if worst > 1e-12*scale {
				t.Errorf("charged=%v exact=%v: largest difference %g (forces up to %g)", charged, p.Exact, worst, scale)
			}
		}
	}
}

// magnitudes returns, for each node, the sum of the magnitudes of the
// repulsions on it: the scale the monopole approximation's error is
// bounded against (a node whose pushes nearly cancel has a tiny net
// force, so its relative error says nothing about the approximation).
func magnitudes(g Graph, x, y []float64) []float64 {
	m := make([]float64, g.N)
	for i := range g.N {
		for j := range g.N {
			d := math.Hypot(x[i]-x[j], y[i]-y[j])
			if i != j && d > 0 {
				c := math.Max(d, 1)
				m[i] += 0.024 * g.Charge[i] * g.Charge[j] / (c * c)
			}
		}
	}
	return m
}

// With theta = 0.7 the monopole approximation stays within a stated bound
// of the exact repulsion, on clustered points: the error on every node is
// under 10% of the sum of the magnitudes of the pushes on it (1.5% for
// the median node), and the error over all nodes is under 2% of the
// forces in the root mean square. (Measured: 6.4%, 0.8% and 1.3%.)
func TestTheta07Bound(t *testing.T) {
	for _, charged := range []bool{false, true} {
		g := randomGraph(3000, 0, 11, true)
		if !charged {
			for i := range g.Charge {
				g.Charge[i] = 1
			}
		}
		g.Edges = nil
		x, y := clustered(g.N, 5)
		ex, ey, err := Forces(g, x, y, Params{Exact: true})
		if err != nil {
			t.Fatal(err)
		}
		fx, fy, err := Forces(g, x, y, Params{})
		if err != nil {
			t.Fatal(err)
		}
		mag := magnitudes(g, x, y)
		var rel []float64
		var errSq, forceSq float64
		for i := range fx {
			e := math.Hypot(fx[i]-ex[i], fy[i]-ey[i])
			rel = append(rel, e/mag[i])
			errSq += e * e
			forceSq += ex[i]*ex[i] + ey[i]*ey[i]
		}
		sort.Float64s(rel)
		rms := math.Sqrt(errSq / forceSq)
		t.Logf("charged=%v: error over the sum of magnitudes: median %.2e, 99%% %.2e, max %.2e; rms error over rms force %.2e",
			charged, rel[len(rel)/2], rel[len(rel)*99/100], rel[len(rel)-1], rms)
		if rel[len(rel)-1] > 0.1 || rel[len(rel)/2] > 0.015 || rms > 0.02 {
			t.Errorf("charged=%v: max error %.3g of the magnitudes (bound 0.1), median %.3g (bound 0.015), rms %.3g (bound 0.02)",
				charged, rel[len(rel)-1], rel[len(rel)/2], rms)
		}
	}
}

// The forces are minus the gradient of Potential (central differences).
func TestForcesDeriveFromPotential(t *testing.T) {
	g := randomGraph(40, 70, 13, true)
	// Spread points: U is not differentiable where two nodes meet.
	r := rand.New(rand.NewPCG(17, 3))
	x, y := make([]float64, g.N), make([]float64, g.N)
	for i := range x {
		x[i], y[i] = r.NormFloat64()*4, r.NormFloat64()*4
	}
	fx, fy, err := Forces(g, x, y, Params{Exact: true})
	if err != nil {
		t.Fatal(err)
	}
	const h = 1e-6
	for i := range g.N {
		for axis, v := range [][]float64{x, y} {
			old := v[i]
			v[i] = old + h
			up := Potential(g, x, y, Params{})
			v[i] = old - h
			down := Potential(g, x, y, Params{})
			v[i] = old
			grad := (up - down) / (2 * h)
			f := fx[i]
			if axis == 1 {
				f = fy[i]
			}
			if math.Abs(f+grad) > 1e-5*math.Max(1, math.Abs(f)) {
				t.Fatalf("node %d axis %d: force %g, -dU/dx %g", i, axis, f, -grad)
			}
		}
	}
}

// Two connected unit charges settle where the spring balances the
// repulsion: K1 (d - 1) = K2 / d^2, that is d^3 - d^2 - 0.4 = 0.
func TestTwoNodeEquilibrium(t *testing.T) {
	lo, hi := 1.0, 2.0
	for range 200 {
		mid := (lo + hi) / 2
		if mid*mid*mid-mid*mid-0.4 > 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	want := (lo + hi) / 2
	for _, exact := range []bool{false, true} {
		x, y := []float64{0, 3}, []float64{0, 0.5}
		st, err := Layout(Graph{N: 2, Edges: [][2]int32{{0, 1}}}, x, y, Params{Exact: exact, MinMove: 1e-12, Tolerance: 1e-12, MaxIterations: 5000})
		if err != nil {
			t.Fatal(err)
		}
		d := math.Hypot(x[1]-x[0], y[1]-y[0])
		if math.Abs(d-want) > 1e-6 {
			t.Errorf("exact=%v: distance %.9f after %d iterations, want %.9f", exact, d, st.Iterations, want)
		}
		// No drift: the centre stays where it was.
		if math.Abs((x[0]+x[1])/2-1.5) > 1e-9 || math.Abs((y[0]+y[1])/2-0.25) > 1e-9 {
			t.Errorf("exact=%v: centre moved to (%g, %g)", exact, (x[0]+x[1])/2, (y[0]+y[1])/2)
		}
	}
}

func grid(side int) Graph {
	g := Graph{N: side * side}
	for r := range side {
		for c := range side {
			i := int32(r*side + c)
			if c+1 < side {
				g.Edges = append(g.Edges, [2]int32{i, i + 1})
			}
			if r+1 < side {
				g.Edges = append(g.Edges, [2]int32{i, i + int32(side)})
			}
		}
	}
	return g
}

func nans(n int) (x, y []float64) {
	x, y = make([]float64, n), make([]float64, n)
	for i := range x {
		x[i], y[i] = math.NaN(), math.NaN()
	}
	return
}

// From random positions the energy falls and settles: the run converges
// before its cap, the potential drops, the forces vanish (a millionth of
// their initial energy), and a second run from the result barely moves
// anything.
func TestConvergence(t *testing.T) {
	g := grid(20)
	x, y := nans(g.N)
	if _, err := Layout(g, x, y, Params{MaxIterations: -1, Seed: 4}); err != nil {
		t.Fatal(err)
	}
	u0 := Potential(g, x, y, Params{})
	st, err := Layout(g, x, y, Params{Seed: 4, MaxIterations: 3000})
	if err != nil {
		t.Fatal(err)
	}
	u1 := Potential(g, x, y, Params{})
	e := st.Energy
	t.Logf("%d iterations, converged %v, potential %.4g -> %.4g, energy %.4g -> %.4g", st.Iterations, st.Converged, u0, u1, e[0], e[len(e)-1])
	if !st.Converged || st.Iterations >= 3000 {
		t.Fatalf("did not converge in %d iterations", st.Iterations)
	}
	if !(u1 < 0.5*u0) {
		t.Errorf("potential %g -> %g: not lower", u0, u1)
	}
	if !(e[len(e)-1] < 1e-6*e[0]) {
		t.Errorf("energy %g -> %g: forces did not vanish", e[0], e[len(e)-1])
	}
	x2, y2 := append([]float64(nil), x...), append([]float64(nil), y...)
	if _, err := Layout(g, x2, y2, Params{Step: 0.1, MaxIterations: 50}); err != nil {
		t.Fatal(err)
	}
	moved := 0.0
	for i := range x {
		moved = math.Max(moved, math.Hypot(x2[i]-x[i], y2[i]-y[i]))
	}
	if moved > 1e-2 {
		t.Errorf("continuing a converged layout moved a node by %g", moved)
	}
}

// The same seed gives the same layout, bit for bit, whatever the number of
// workers; another seed another layout.
func TestDeterministic(t *testing.T) {
	g := randomGraph(500, 700, 21, true)
	run := func(seed uint64, workers int) ([]float64, []float64) {
		x, y := nans(g.N)
		if _, err := Layout(g, x, y, Params{Seed: seed, Workers: workers, MaxIterations: 60}); err != nil {
			t.Fatal(err)
		}
		return x, y
	}
	x1, y1 := run(1, 1)
	x2, y2 := run(1, 3)
	for i := range x1 {
		if x1[i] != x2[i] || y1[i] != y2[i] {
			t.Fatalf("node %d: (%v,%v) with 1 worker, (%v,%v) with 3", i, x1[i], y1[i], x2[i], y2[i])
		}
	}
	x3, _ := run(2, 1)
	same := 0
	for i := range x1 {
		if x1[i] == x3[i] {
			same++
		}
	}
	if same == len(x1) {
		t.Error("seeds 1 and 2 give the same layout")
	}
}

// Only the nodes without a position are placed; the others start where
// they are.
func TestIncrementalPlacement(t *testing.T) {
	x := []float64{5, math.NaN(), 7}
	y := []float64{1, math.NaN(), 3}
	if _, err := Layout(Graph{N: 3}, x, y, Params{MaxIterations: -1}); err != nil {
		t.Fatal(err)
	}
	if x[0] != 5 || y[0] != 1 || x[2] != 7 || y[2] != 3 {
		t.Fatalf("placed nodes moved: %v %v", x, y)
	}
	// The new node lands in a square of side sqrt(3) around (6, 2).
	if math.Abs(x[1]-6) > math.Sqrt(3)/2 || math.Abs(y[1]-2) > math.Sqrt(3)/2 {
		t.Fatalf("new node at (%g, %g)", x[1], y[1])
	}
}

func TestBadInput(t *testing.T) {
	x, y := []float64{0, 1}, []float64{0, 1}
	cases := []struct {
		g     Graph
		p     Params
		param string
	}{
		{Graph{N: 2, Charge: []float64{1, -1}}, Params{}, "charge"},
		{Graph{N: 2, Charge: []float64{1}}, Params{}, "charge"},
		{Graph{N: 2, Edges: [][2]int32{{0, 2}}}, Params{}, "edges"},
		{Graph{N: 3}, Params{}, "positions"},
		{Graph{N: 2}, Params{Theta: math.NaN()}, "theta"},
		{Graph{N: 2}, Params{Repulsion: -1}, "repulsion"},
		{Graph{N: 2}, Params{Window: 1}, "window"},
	}
	for _, c := range cases {
		_, err := Layout(c.g, append([]float64(nil), x...), append([]float64(nil), y...), c.p)
		var ae *errs.ArgumentError
		if !errors.As(err, &ae) || ae.Name != c.param {
			t.Errorf("%+v %+v: error %v, want an argument error on %s", c.g, c.p, err, c.param)
		}
	}
	if _, _, err := Forces(Graph{N: 2}, []float64{0, math.NaN()}, []float64{0, 0}, Params{}); err == nil {
		t.Error("Forces accepted a node without position")
	}
}

// Coincident nodes and empty graphs do not break the tree.
func TestDegenerate(t *testing.T) {
	if _, err := Layout(Graph{}, nil, nil, Params{}); err != nil {
		t.Fatal(err)
	}
	g := Graph{N: 100}
	x, y := make([]float64, 100), make([]float64, 100)
	fx, fy, err := Forces(g, x, y, Params{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range fx {
		if fx[i] != 0 || fy[i] != 0 {
			t.Fatalf("node %d: force (%g, %g) between coincident nodes", i, fx[i], fy[i])
		}
	}
}
