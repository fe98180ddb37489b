//go:build amd64 && !purego

package aggregate

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The assembly kernels come in SSE2, AVX2 and AVX-512 forms: each is
// checked, whichever the processor would use, the wider ones where the
// processor has them.

type kernelSet int

const (
	sse2Kernels kernelSet = iota
	avx2Kernels
	avx512Kernels
)

func (k kernelSet) String() string { return [...]string{"SSE2", "AVX2", "AVX-512"}[k] }

// withKernels runs f with the kernels of k, the wider ones turned off.
func withKernels(t *testing.T, k kernelSet, f func(*testing.T)) {
	if k >= avx2Kernels && !hasAVX2 || k >= avx512Kernels && !hasAVX512 {
		t.Skipf("no %v", k)
	}
	old2, old512 := hasAVX2, hasAVX512
	hasAVX2, hasAVX512 = k >= avx2Kernels, k >= avx512Kernels
	defer func() { hasAVX2, hasAVX512 = old2, old512 }()
	f(t)
}

var kernelChecks = []func(*testing.T){
	checkBestIntervals,
	checkColumnSearch,
	checkLexBestIntervals,
	checkLexColumns,
	checkXlog2x,
	checkAddTo,
	checkIntervalSums,
	checkAggregateRaw,
	checkAggregateCached,
}

func TestKernelsSSE2(t *testing.T) {
	for _, check := range kernelChecks {
		withKernels(t, sse2Kernels, check)
	}
}

func TestKernelsAVX2(t *testing.T) {
	for _, check := range kernelChecks {
		withKernels(t, avx2Kernels, check)
	}
}

func TestKernelsAVX512(t *testing.T) {
	for _, check := range kernelChecks {
		withKernels(t, avx512Kernels, check)
	}
}

// TestAVX2KernelsUseNoSSE checks that the functions written with 256-bit
// or 512-bit registers use VEX (or EVEX) instructions only. Go's assembler writes MOVQ AX, X8
// and the like as SSE instructions, and an SSE instruction run while the
// upper halves of the vector registers are in use costs about 350 cycles
// on AMD Zen 3: six such moves once made every call of xlogAccQuads cost
// 0.7 us more, a fifth of the 1,000,000 x 30 solve. Functions that use
// no 256-bit register (the SSE2 kernels) are left alone.
func TestAVX2KernelsUseNoSSE(t *testing.T) {
	files, err := filepath.Glob("*_amd64.s")
	if err != nil || len(files) == 0 {
		t.Fatalf("no assembly found: %v", err)
	}
	vector := regexp.MustCompile(`\b[XYZ]([0-9]|[12][0-9]|3[01])\b`)
	wide := regexp.MustCompile(`\b[YZ]([0-9]|[12][0-9]|3[01])\b`)
	// A macro called with arguments (its body, indented under #define,
	// is checked on its own, as a function is).
	macroCall := regexp.MustCompile(`^[A-Z_][A-Z0-9_]*\(`)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		type insn struct {
			line int
			text string
		}
		var fn string
		var body []insn
		check := func() {
			usesWide := false
			for _, in := range body {
				usesWide = usesWide || wide.MatchString(in.text)
			}
			if !usesWide {
				return
			}
			for _, in := range body {
				op := strings.Fields(in.text)[0]
				if vector.MatchString(in.text) && !strings.HasPrefix(op, "V") && !macroCall.MatchString(op) {
					t.Errorf("%s:%d: %s uses 256-bit or 512-bit registers, but %q is an SSE instruction (use its VEX form)", f, in.line, fn, in.text)
				}
			}
		}
		for i, l := range strings.Split(string(data), "\n") {
			code, _, _ := strings.Cut(l, "//")
			code = strings.TrimSpace(code)
			switch {
			case strings.HasPrefix(code, "TEXT"):
				check()
				fn, body = strings.Fields(code)[1], nil
			case strings.HasPrefix(code, "#define"): // a macro's body, checked on its own
				check()
				fn, body = strings.Fields(code)[1], nil
			case fn != "" && code != "" && !strings.HasSuffix(code, ":") && !strings.HasPrefix(code, "#") && l[0] == '\t':
				body = append(body, insn{i + 1, code})
			}
		}
		check()
	}
}
