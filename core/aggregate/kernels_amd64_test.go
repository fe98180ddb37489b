//go:build amd64 && !purego

package aggregate

import "testing"

// The assembly kernels come in SSE2 and AVX2 forms: both are checked,
// whichever the processor would use.

func withAVX2(t *testing.T, on bool, f func(*testing.T)) {
	if on && !hasAVX2 {
		t.Skip("no AVX2")
	}
	old := hasAVX2
	hasAVX2 = on
	defer func() { hasAVX2 = old }()
	f(t)
}

func TestKernelsSSE2(t *testing.T) {
	withAVX2(t, false, checkBestIntervals)
	withAVX2(t, false, checkColumnSearch)
	withAVX2(t, false, checkXlog2x)
	withAVX2(t, false, checkAddTo)
	withAVX2(t, false, checkIntervalSums)
	withAVX2(t, false, checkAggregateRaw)
	withAVX2(t, false, checkAggregateCached)
}

func TestKernelsAVX2(t *testing.T) {
	withAVX2(t, true, checkBestIntervals)
	withAVX2(t, true, checkColumnSearch)
	withAVX2(t, true, checkXlog2x)
	withAVX2(t, true, checkAddTo)
	withAVX2(t, true, checkIntervalSums)
	withAVX2(t, true, checkAggregateRaw)
	withAVX2(t, true, checkAggregateCached)
}
