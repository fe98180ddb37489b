// Package forcelayout lays a graph out in the plane with a force-directed
// algorithm: springs pull connected nodes towards a rest length, every
// node repels every other like an electric charge, and the repulsion is
// computed with a Barnes-Hut quadtree in O(n log n) per iteration (Barnes
// and Hut 1986).
//
// The forces and their defaults are those of Viva, the tool of Schnorr,
// Legrand and Vincent 2012: rest length k = 1, attraction K1 = 0.06,
// repulsion K2 = 0.024, opening angle theta = 0.7. Each edge (i, j) pulls
// both ends together with K1 (d - k) (d their distance; it pushes them
// apart below k), and each pair of nodes repels with Coulomb's law
// K2 q_i q_j / max(d, k)^2, q being the nodes' charges (1 by default; an
// aggregated node gets a larger one). Every node moves by the sum of the
// forces on it. The forces derive from the energy
//
//	U = sum over edges K1 (d - k)^2 / 2 + sum over pairs K2 q_i q_j phi(d)
//
// with phi(d) = 1/d beyond k and 2/k - d/k^2 below (see Potential), so the
// layout settles in a minimum of U and does not drift. A distant cell of
// the quadtree acts as its total charge at its centre of charge when its
// side over its distance is under theta; any other cell is opened, leaf or
// not (Viva's C port skipped distant cells that were not leaves, which
// drops their repulsion).
//
// Viva moved every node by its force at each step, capped at half the
// diagonal of the drawing. On graphs with hubs (a switch wired to a
// hundred hosts) that step overshoots and oscillates, and on long chains
// it crawls. Here a node moves by its force over its stiffness (K1 per
// edge plus the derivative of its repulsions, when over 1: Triva's
// damping, set per node), and the moves are integrated with FIRE (Bitzek
// et al. 2006): nodes gather speed while the forces keep pointing the
// same way and stop dead when they turn against the motion. A move is
// capped at Step. The layout stops when the energy, the sum of the
// squared forces, stops falling (no new low by Tolerance in the last
// Window iterations; Viva waited for the standard deviation of its last
// 256 energies to fall under a fixed threshold), when no node is pulled
// by more than MinMove, or after MaxIterations.
//
// Runs are deterministic: positions that are not given are drawn from a
// generator seeded with Params.Seed, forces are summed in a fixed order
// whatever the number of workers, and a run continues from the positions
// it is given (incremental layout).
package forcelayout

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Graph is an undirected graph on nodes 0..N-1.
type Graph struct {
	N      int
	Edges  [][2]int32 // each pair once; self loops are ignored
	Charge []float64  // charge of each node (nil: 1 each); must be > 0
}

// Params are the constants of the layout. Zero fields take the defaults.
type Params struct {
	RestLength float64 // k, the spring's rest length (1)
	Attraction float64 // K1 (0.06)
	Repulsion  float64 // K2 (0.024)
	// Theta is the Barnes-Hut opening criterion (0.7): a cell of side s at
	// distance d from a node acts as one charge when s/d < Theta. 0 opens
	// every cell, which gives the exact forces; set ExactTheta to ask for
	// 0 (a zero Theta means the default).
	Theta      float64
	ExactTheta bool
	// Exact sums the repulsion over every pair directly, without a tree:
	// O(n^2) per iteration, the reference Barnes-Hut is measured against.
	Exact bool
	// MaxIterations caps the run (500). Iterations: 0 means the default;
	// a negative value runs no iteration (only places missing nodes).
	MaxIterations int
	// Tolerance and Window define convergence: the run stops once the
	// last Window iterations (100) did not lower the energy by Tolerance
	// (1%) below its lowest value before them, or once the forces are so
	// weak that no node would move by more than MinMove (1e-3 k) in a
	// plain step (its force over its stiffness).
	Tolerance float64
	Window    int
	MinMove   float64
	// Step caps a node's move in one iteration (10 k).
	Step float64
	// Seed seeds the positions drawn for nodes without one.
	Seed uint64
	// Workers computes forces on this many goroutines (GOMAXPROCS).
	Workers int
	// Cancel, once closed, stops the run at its next iteration with
	// ErrCanceled; the positions are those reached (a layout improves
	// valid positions step by step).
	Cancel <-chan struct{}
	// Progress, if set, is called after every iteration with the number
	// done and MaxIterations (most runs converge before).
	Progress func(done, max int)
}

// ErrCanceled is the error of a layout stopped by Params.Cancel.
var ErrCanceled = errors.New("layout canceled")

// canceled reports whether p.Cancel is closed.
func (p Params) canceled() bool {
	if p.Cancel == nil {
		return false
	}
	select {
	case <-p.Cancel:
		return true
	default:
		return false
	}
}

// Defaults returns p with every zero field set to its default.
func (p Params) Defaults() Params {
	if p.RestLength == 0 {
		p.RestLength = 1
	}
	if p.Attraction == 0 {
		p.Attraction = 0.06
	}
	if p.Repulsion == 0 {
		p.Repulsion = 0.024
	}
	if p.Theta == 0 && !p.ExactTheta {
		p.Theta = 0.7
	}
	if p.MaxIterations == 0 {
		p.MaxIterations = 500
	}
	if p.Tolerance == 0 {
		p.Tolerance = 0.01
	}
	if p.Window == 0 {
		p.Window = 100
	}
	if p.MinMove == 0 {
		p.MinMove = 1e-3 * p.RestLength
	}
	if p.Step == 0 {
		p.Step = 10 * p.RestLength
	}
	if p.Workers <= 0 {
		p.Workers = runtime.GOMAXPROCS(0)
	}
	return p
}

func (p Params) validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"rest_length", p.RestLength}, {"attraction", p.Attraction}, {"repulsion", p.Repulsion}, {"tolerance", p.Tolerance}, {"step", p.Step}} {
		if !(f.v > 0) || math.IsInf(f.v, 0) {
			return errs.Argument(f.name, "must be a positive finite number, got %v", f.v)
		}
	}
	if !(p.Theta >= 0) || math.IsInf(p.Theta, 0) {
		return errs.Argument("theta", "must be a finite number >= 0, got %v", p.Theta)
	}
	if p.Window < 2 {
		return errs.Argument("window", "must be at least 2 iterations, got %d", p.Window)
	}
	return nil
}

// Stats describe a run.
type Stats struct {
	Iterations int       // iterations done
	Converged  bool      // stopped because the energy stopped changing
	Energy     []float64 // the energy (sum of squared forces) at each iteration, before moving
	Step       float64   // the cap on a move
}

// Layout moves the nodes of g from the positions x, y (len g.N each; NaN
// where a node has no position yet, which then gets one at random in a
// square of side sqrt(N) k around the others) until the energy stops
// changing or MaxIterations are done. x and y are updated in place.
func Layout(g Graph, x, y []float64, p Params) (Stats, error) {
	p = p.Defaults()
	if err := p.validate(); err != nil {
		return Stats{}, err
	}
	if err := g.validate(x, y); err != nil {
		return Stats{}, err
	}
	place(g.N, x, y, p)
	s := newSolver(g, p)
	st := Stats{Step: p.Step}
	if p.MaxIterations < 0 {
		return st, nil
	}
	fx, fy, stiff := make([]float64, g.N), make([]float64, g.N), make([]float64, g.N)
	vx, vy := make([]float64, g.N), make([]float64, g.N)
	f := fire{dt: 1, alpha: fireAlpha}
	for st.Iterations < p.MaxIterations {
		if p.canceled() {
			return st, ErrCanceled
		}
		e := s.forces(x, y, fx, fy, stiff)
		st.Energy = append(st.Energy, e)
		// A stiff node (a hub, a heavy charge among others) moves by its
		// force over its stiffness, so that it does not overshoot.
		// Converged when no node would move by MinMove in a plain step
		// (FIRE's own steps shrink on every turn, so they cannot tell).
		pull := 0.0
		for i := range g.N {
			m := math.Max(1, stiff[i])
			fx[i] /= m
			fy[i] /= m
			pull = math.Max(pull, fx[i]*fx[i]+fy[i]*fy[i])
		}
		if math.Sqrt(pull) < p.MinMove {
			st.Converged = true
			break
		}
		f.step(fx, fy, vx, vy)
		for i := range g.N {
			dx, dy := f.dt*vx[i], f.dt*vy[i]
			if l := math.Hypot(dx, dy); l > st.Step {
				dx, dy = dx*st.Step/l, dy*st.Step/l
				vx[i], vy[i] = dx/f.dt, dy/f.dt
			}
			x[i] += dx
			y[i] += dy
		}
		st.Iterations++
		if p.Progress != nil {
			p.Progress(st.Iterations, p.MaxIterations)
		}
		if stable(st.Energy, p) {
			st.Converged = true
			break
		}
	}
	return st, nil
}

// The constants of FIRE (Bitzek et al. 2006).
const (
	fireAlpha = 0.1  // initial mixing of the velocity towards the force
	fireNMin  = 5    // downhill steps before speeding up
	fireInc   = 1.1  // time step growth
	fireDec   = 0.5  // time step cut on going uphill
	fireFA    = 0.99 // mixing decay
	fireDtMax = 2    // largest time step, in Viva's steps
)

// fire is the state of the Fast Inertial Relaxation Engine (Bitzek et al.
// 2006): nodes keep a velocity, steered towards the forces; going uphill
// (velocity against the forces) stops everything and shortens the step.
type fire struct {
	dt, alpha float64
	downhill  int
}

// step updates the velocities v from the accelerations a.
func (f *fire) step(ax, ay, vx, vy []float64) {
	var power, vv, aa float64
	for i := range ax {
		power += ax[i]*vx[i] + ay[i]*vy[i]
		vv += vx[i]*vx[i] + vy[i]*vy[i]
		aa += ax[i]*ax[i] + ay[i]*ay[i]
	}
	if power > 0 {
		if aa > 0 {
			mix := f.alpha * math.Sqrt(vv/aa)
			for i := range ax {
				vx[i] = (1-f.alpha)*vx[i] + mix*ax[i]
				vy[i] = (1-f.alpha)*vy[i] + mix*ay[i]
			}
		}
		f.downhill++
		if f.downhill > fireNMin {
			f.dt = math.Min(f.dt*fireInc, fireDtMax)
			f.alpha *= fireFA
		}
	} else {
		clear(vx)
		clear(vy)
		f.dt *= fireDec
		f.alpha = fireAlpha
		f.downhill = 0
	}
	for i := range ax {
		vx[i] += f.dt * ax[i]
		vy[i] += f.dt * ay[i]
	}
}

// stable tells whether the energy stopped falling: none of the last
// Window iterations brought it below (1 - Tolerance) times its lowest
// value before them. Lowest values rather than the last one, because the
// Barnes-Hut forces change by jumps as cells open and close: near
// equilibrium the energy wavers around a floor instead of falling to
// zero.
func stable(energy []float64, p Params) bool {
	w := p.Window
	if len(energy) <= w {
		return false
	}
	before := math.Inf(1)
	for _, e := range energy[:len(energy)-w] {
		before = math.Min(before, e)
	}
	for _, e := range energy[len(energy)-w:] {
		if e < (1-p.Tolerance)*before {
			return false
		}
	}
	return true
}

func (g Graph) validate(x, y []float64) error {
	if len(x) != g.N || len(y) != g.N {
		return errs.Argument("positions", "%d nodes but %d x and %d y", g.N, len(x), len(y))
	}
	if g.Charge != nil && len(g.Charge) != g.N {
		return errs.Argument("charge", "%d nodes but %d charges", g.N, len(g.Charge))
	}
	for i, q := range g.Charge {
		if !(q > 0) || math.IsInf(q, 0) {
			return errs.Argument("charge", "node %d: charge must be positive and finite, got %v", i, q)
		}
	}
	for _, e := range g.Edges {
		if e[0] < 0 || int(e[0]) >= g.N || e[1] < 0 || int(e[1]) >= g.N {
			return errs.Argument("edges", "edge %d-%d: no such node in a graph of %d", e[0], e[1], g.N)
		}
	}
	for i := range x {
		if math.IsInf(x[i], 0) || math.IsInf(y[i], 0) {
			return errs.Argument("positions", "node %d: infinite position", i)
		}
	}
	return nil
}

// place gives a position to every node without one (NaN x or y): uniform
// in a square of side sqrt(N) k centred on the placed nodes' centroid.
func place(n int, x, y []float64, p Params) {
	var cx, cy float64
	known := 0
	for i := range n {
		if !math.IsNaN(x[i]) && !math.IsNaN(y[i]) {
			cx += x[i]
			cy += y[i]
			known++
		}
	}
	if known == n {
		return
	}
	if known > 0 {
		cx /= float64(known)
		cy /= float64(known)
	}
	side := math.Sqrt(float64(n)) * p.RestLength
	r := rand.New(rand.NewPCG(p.Seed, 0x9e3779b97f4a7c15))
	for i := range n {
		if math.IsNaN(x[i]) || math.IsNaN(y[i]) {
			x[i] = cx + (r.Float64()-0.5)*side
			y[i] = cy + (r.Float64()-0.5)*side
		}
	}
}

// solver computes forces; it keeps its buffers between iterations.
type solver struct {
	g    Graph
	p    Params
	tree quadtree
	adj  [][]int32 // neighbours of each node, each pair once per side
}

func newSolver(g Graph, p Params) *solver {
	s := &solver{g: g, p: p, adj: make([][]int32, g.N)}
	for _, e := range g.Edges {
		if e[0] == e[1] {
			continue
		}
		s.adj[e[0]] = append(s.adj[e[0]], e[1])
		s.adj[e[1]] = append(s.adj[e[1]], e[0])
	}
	return s
}

// forces sets fx, fy to the force on each node (repulsion and attraction)
// and returns the energy, the sum of their squares. If stiff is not nil it
// receives a bound on how fast each node's force changes as it moves: K1
// per edge plus 2 K2 q_i q_j / max(d, k)^3 per other node.
func (s *solver) forces(x, y, fx, fy, stiff []float64) float64 {
	n := s.g.N
	if !s.p.Exact {
		s.tree.build(x, y, s.g.Charge)
	}
	workers := min(s.p.Workers, max(1, n/64))
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				var rx, ry, rs float64
				if s.p.Exact {
					rx, ry, rs = s.exactRepulsion(int32(i), x, y)
				} else {
					rx, ry, rs = s.treeRepulsion(int32(i), x, y)
				}
				ax, ay := s.attraction(int32(i), x, y)
				q := charge(s.g.Charge, int32(i))
				fx[i], fy[i] = q*rx+ax, q*ry+ay
				if stiff != nil {
					stiff[i] = s.p.Attraction*float64(len(s.adj[i])) + q*rs
				}
			}
		}()
	}
	wg.Wait()
	e := 0.0
	for i := range n {
		e += fx[i]*fx[i] + fy[i]*fy[i]
	}
	return e
}

// push returns the repulsion on a unit charge at (dx, dy) from a charge q
// at the origin, K2 q / max(d, k)^2 along (dx, dy), and its stiffness
// 2 K2 q / max(d, k)^3; no force at distance 0 (coincident nodes have no
// direction to part along; positions drawn at random or with a jitter
// never coincide).
func (s *solver) push(dx, dy, q float64) (float64, float64, float64) {
	d := math.Sqrt(dx*dx + dy*dy)
	if d == 0 {
		return 0, 0, 0
	}
	c := math.Max(d, s.p.RestLength)
	f := s.p.Repulsion * q / (c * c)
	return dx * f / d, dy * f / d, 2 * f / c
}

func (s *solver) exactRepulsion(i int32, x, y []float64) (rx, ry, rs float64) {
	for j := range int32(s.g.N) {
		if j == i {
			continue
		}
		fx, fy, fs := s.push(x[i]-x[j], y[i]-y[j], charge(s.g.Charge, j))
		rx += fx
		ry += fy
		rs += fs
	}
	return
}

// treeRepulsion walks the quadtree depth first: a cell that does not hold
// node i and whose side over its distance to i is under theta acts as one
// charge; any other cell is opened, and a leaf's points act one by one.
func (s *solver) treeRepulsion(i int32, x, y []float64) (rx, ry, rs float64) {
	t := &s.tree
	xi, yi := x[i], y[i]
	theta2 := s.p.Theta * s.p.Theta
	var stack [4*maxDepth + 8]int32
	sp := 0
	stack[sp] = 0
	sp++
	for sp > 0 {
		sp--
		c := &t.cells[stack[sp]]
		if c.count == 0 {
			continue
		}
		if c.leaf() {
			for j := c.first; j >= 0; j = t.next[j] {
				if j != i {
					fx, fy, fs := s.push(xi-x[j], yi-y[j], charge(s.g.Charge, j))
					rx += fx
					ry += fy
					rs += fs
				}
			}
			continue
		}
		dx, dy := xi-c.mx, yi-c.my
		if side := 2 * c.half; side*side < theta2*(dx*dx+dy*dy) && !c.contains(xi, yi) {
			fx, fy, fs := s.push(dx, dy, c.q)
			rx += fx
			ry += fy
			rs += fs
			continue
		}
		for k := 3; k >= 0; k-- {
			if kid := c.kids[k]; kid != 0 {
				stack[sp] = kid
				sp++
			}
		}
	}
	return
}

func (s *solver) attraction(i int32, x, y []float64) (ax, ay float64) {
	for _, j := range s.adj[i] {
		dx, dy := x[j]-x[i], y[j]-y[i]
		d := math.Hypot(dx, dy)
		if d == 0 {
			continue
		}
		f := s.p.Attraction * (d - s.p.RestLength) / d
		ax += dx * f
		ay += dy * f
	}
	return
}

// Forces returns the move each node would make from x, y (repulsion plus
// attraction, before the cap on steps) with the parameters p, computed as
// Layout computes it: with the quadtree, or over every pair if p.Exact.
func Forces(g Graph, x, y []float64, p Params) (fx, fy []float64, err error) {
	p = p.Defaults()
	if err := p.validate(); err != nil {
		return nil, nil, err
	}
	if err := g.validate(x, y); err != nil {
		return nil, nil, err
	}
	for i := range x {
		if math.IsNaN(x[i]) || math.IsNaN(y[i]) {
			return nil, nil, errs.Argument("positions", "node %d has no position", i)
		}
	}
	fx, fy = make([]float64, g.N), make([]float64, g.N)
	newSolver(g, p).forces(x, y, fx, fy, nil)
	return fx, fy, nil
}

// Potential returns the energy U the forces derive from (see the package
// documentation), summed over every pair: O(n^2), for checks.
func Potential(g Graph, x, y []float64, p Params) float64 {
	p = p.Defaults()
	k := p.RestLength
	u := 0.0
	for _, e := range g.Edges {
		if e[0] != e[1] {
			d := math.Hypot(x[e[0]]-x[e[1]], y[e[0]]-y[e[1]]) - k
			u += p.Attraction * d * d / 2
		}
	}
	for i := range int32(g.N) {
		for j := i + 1; j < int32(g.N); j++ {
			d := math.Hypot(x[i]-x[j], y[i]-y[j])
			phi := 1 / d
			if d < k {
				phi = 2/k - d/(k*k)
			}
			u += p.Repulsion * charge(g.Charge, i) * charge(g.Charge, j) * phi
		}
	}
	return u
}
