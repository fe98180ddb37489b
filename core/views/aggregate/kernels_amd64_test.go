//go:build amd64 && !purego

package aggregate

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

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
	withAVX2(t, false, checkLexBestIntervals)
	withAVX2(t, false, checkLexColumns)
	withAVX2(t, false, checkXlog2x)
	withAVX2(t, false, checkAddTo)
	withAVX2(t, false, checkIntervalSums)
	withAVX2(t, false, checkAggregateRaw)
	withAVX2(t, false, checkAggregateCached)
}

func TestKernelsAVX2(t *testing.T) {
	withAVX2(t, true, checkBestIntervals)
	withAVX2(t, true, checkColumnSearch)
	withAVX2(t, true, checkLexBestIntervals)
	withAVX2(t, true, checkLexColumns)
	withAVX2(t, true, checkXlog2x)
	withAVX2(t, true, checkAddTo)
	withAVX2(t, true, checkIntervalSums)
	withAVX2(t, true, checkAggregateRaw)
	withAVX2(t, true, checkAggregateCached)
}

// TestAVX2KernelsUseNoSSE checks that the functions written with 256-bit
// registers use VEX instructions only. Go's assembler writes MOVQ AX, X8
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
	vector := regexp.MustCompile(`\b[XY]([0-9]|1[0-5])\b`)
	wide := regexp.MustCompile(`\bY([0-9]|1[0-5])\b`)
	// A macro called with arguments (its body, indented under #define,
	// is checked where it is defined).
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
					t.Errorf("%s:%d: %s uses 256-bit registers, but %q is an SSE instruction (use its VEX form)", f, in.line, fn, in.text)
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
			case fn != "" && code != "" && !strings.HasSuffix(code, ":") && !strings.HasPrefix(code, "#") && l[0] == '\t':
				body = append(body, insn{i + 1, code})
			}
		}
		check()
	}
}
