package compare

import "math"

// gammaQ returns the regularized upper incomplete gamma function
// Q(a, x) = Gamma(a, x) / Gamma(a): the probability that a gamma
// variable of shape a and scale 1 exceeds x (Numerical Recipes' series
// and continued fraction).
func gammaQ(a, x float64) float64 {
	if !(a > 0) || math.IsNaN(x) {
		return math.NaN()
	}
	if x <= 0 {
		return 1
	}
	lg, _ := math.Lgamma(a)
	if x < a+1 {
		// Series for P(a, x).
		sum, term := 1/a, 1/a
		for n := 1; n < 1000; n++ {
			term *= x / (a + float64(n))
			sum += term
			if math.Abs(term) < math.Abs(sum)*1e-15 {
				break
			}
		}
		return math.Max(0, 1-sum*math.Exp(-x+a*math.Log(x)-lg))
	}
	// Continued fraction for Q(a, x) (modified Lentz).
	const tiny = 1e-300
	b := x + 1 - a
	c := 1 / tiny
	d := 1 / b
	h := d
	for i := 1; i < 1000; i++ {
		an := -float64(i) * (float64(i) - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = b + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return math.Min(1, math.Exp(-x+a*math.Log(x)-lg)*h)
}

// gammaTail returns the probability that a gamma variable with the given
// mean and variance exceeds x: the tail of a permutation null fitted by
// its moments, for p-values finer than the permutations resolve.
func gammaTail(mean, variance, x float64) float64 {
	if !(mean > 0) || !(variance > 0) {
		if x > mean {
			return 0
		}
		return 1
	}
	shape, scale := mean*mean/variance, variance/mean
	return gammaQ(shape, x/scale)
}
