package aggregate

import "math"

// Computing the gain and loss of every (node, interval) takes one
// logarithm per state, interval and node: on large models, more time than
// the dynamic program itself. log2 below is about four times as fast as
// math.Log2 and as accurate (within a few units in the last place; the
// tests compare them), from a table of log2 over the top 8 bits of the
// mantissa and a short series for the rest.

const log2TableBits = 8

var log2Table, log2InvTable = func() (logs, invs [1 << log2TableBits]float64) {
	for i := range logs {
		c := 1 + float64(i)/(1<<log2TableBits)
		logs[i] = math.Log2(c)
		invs[i] = 1 / c
	}
	return
}()

// log2Pairs holds log2Table[i], log2InvTable[i] side by side, for the
// vector code that loads both at once.
//
//lint:ignore U1000 read by the assembly of log2avx_amd64.s
var log2Pairs = func() (pairs [1 << log2TableBits][2]float64) {
	for i := range pairs {
		pairs[i] = [2]float64{log2Table[i], log2InvTable[i]}
	}
	return
}()

// log2 returns log2(x) for a finite x > 0.
func log2(x float64) float64 {
	bits := math.Float64bits(x)
	exp := int(bits>>52) & 0x7ff
	if exp == 0 { // subnormal: bring it into the normal range first
		bits = math.Float64bits(x * 0x1p52)
		exp = int(bits>>52)&0x7ff - 52
	}
	const shift = 52 - log2TableBits
	mant := bits & (1<<52 - 1)
	idx := mant >> shift
	// x = 2^e * c * (1 + r) with c = 1 + idx/2^8 and 0 <= r < 2^-8.
	r := float64(mant&(1<<shift-1)) * 0x1p-52 * log2InvTable[idx]
	ln1p := r * (1 - r*(1.0/2-r*(1.0/3-r*(1.0/4-r*(1.0/5-r*(1.0/6))))))
	return float64(exp-1023) + (log2Table[idx] + ln1p*(1/math.Ln2))
}

// xlog2xToGeneric sets dst[k] to xlog2x(src[k]) for every k: log2
// written out in the loop (it is too large for the compiler to inline), so
// that the logarithms of consecutive elements overlap. The arithmetic is
// that of xlog2x, operation for operation: the results are the same bits.
// xlog2xTo does the same, two elements per instruction where assembly is
// available (log2_amd64.s).
//
//lint:ignore U1000 xlog2xTo where no assembly is (log2_other.go), and the kernels' tests
func xlog2xToGeneric(dst, src []float64) {
	dst = dst[:len(src)]
	const shift = 52 - log2TableBits
	for k, x := range src {
		if x <= 0 {
			dst[k] = 0
			continue
		}
		bits := math.Float64bits(x)
		exp := int(bits>>52) & 0x7ff
		if exp == 0 {
			dst[k] = x * log2(x) // subnormal
			continue
		}
		mant := bits & (1<<52 - 1)
		idx := mant >> shift & (1<<log2TableBits - 1)
		r := float64(mant&(1<<shift-1)) * 0x1p-52 * log2InvTable[idx]
		ln1p := r * (1 - r*(1.0/2-r*(1.0/3-r*(1.0/4-r*(1.0/5-r*(1.0/6))))))
		dst[k] = x * (float64(exp-1023) + (log2Table[idx] + ln1p*(1/math.Ln2)))
	}
}

// xlogAccumulateGeneric adds sums[k] to totals[k] and xlog2x(sums[k]) to
// xl[k] for every k, or sets them to 0 plus those when first. xlogAccumulate
// does the same, two elements per instruction where assembly is
// available.
func xlogAccumulateGeneric(sums, totals, xl []float64, first bool) {
	totals, xl = totals[:len(sums)], xl[:len(sums)]
	for k, x := range sums {
		if first {
			totals[k], xl[k] = 0+x, 0+xlog2x(x)
		} else {
			totals[k] += x
			xl[k] += xlog2x(x)
		}
	}
}
