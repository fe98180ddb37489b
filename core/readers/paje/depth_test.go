package paje

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// chain is miniHeader's definitions with container types T1..Tn, each
// under the one before, and a container of each in the one of the type
// before: a hierarchy n levels deep.
func chain(n int) string {
	var b strings.Builder
	b.WriteString(strings.Split(miniHeader, "0 P 0")[0])
	b.WriteString("0 T1 0 T1\n")
	for i := 2; i <= n; i++ {
		fmt.Fprintf(&b, "0 T%d T%d T%d\n", i, i-1, i)
	}
	b.WriteString("1 0 c1 T1 0 c1\n")
	for i := 2; i <= n; i++ {
		fmt.Fprintf(&b, "1 0 c%d T%d c%d c%d\n", i, i, i-1, i)
	}
	return b.String()
}

// TestContainerDepth: a hierarchy as deep as trace.MaxDepth is read; a
// container type one level deeper is refused on its line, where a chain
// of any length was read (a million containers in 61 MB), into a
// hierarchy whose recursive walks overflow a goroutine's stack, a fatal
// error.
func TestContainerDepth(t *testing.T) {
	tr := trace.New()
	if err := Decode(strings.NewReader(chain(trace.MaxDepth)), "deep.trace", 0, tr, Options{}); err != nil {
		t.Fatal(err)
	}
	if n := len(tr.Containers); n != trace.MaxDepth+1 {
		t.Fatalf("%d containers, want %d and the root", n, trace.MaxDepth)
	}
	err := Decode(strings.NewReader(chain(trace.MaxDepth+1)), "deep.trace", 0, trace.New(), Options{})
	header := strings.Count(strings.Split(miniHeader, "0 P 0")[0], "\n")
	var fe *errs.FormatError
	want := fmt.Sprintf(`container type "T%d" would be nested %d levels deep, more than %d`, trace.MaxDepth+1, trace.MaxDepth+1, trace.MaxDepth)
	if !errors.As(err, &fe) || fe.File != "deep.trace" || fe.Line != header+trace.MaxDepth+1 || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want deep.trace:%d: %s", err, header+trace.MaxDepth+1, want)
	}
}

// sameTypeChain is miniHeader's definitions with one container type T
// and n containers of it, each in the one before: allowed past PajeNG
// (NGSolve's ngcore nests a container deeper than its type says), so the
// depth of the types bounds nothing.
func sameTypeChain(n int) string {
	var b strings.Builder
	b.WriteString(strings.Split(miniHeader, "0 P 0")[0])
	b.WriteString("0 T 0 T\n1 0 c1 T 0 c1\n")
	for i := 2; i <= n; i++ {
		fmt.Fprintf(&b, "1 0 c%d T c%d c%d\n", i, i-1, i)
	}
	return b.String()
}

// TestContainerDepthOfOneType: containers of one type nested in each
// other are bounded as deep as containers of a chain of types. Before, a
// chain of 200,000 was read; the overview of one of 20,000 took 3.2 GB,
// and one of 200,000 did not end in two minutes.
func TestContainerDepthOfOneType(t *testing.T) {
	tr := trace.New()
	if err := Decode(strings.NewReader(sameTypeChain(trace.MaxDepth)), "deep.trace", 0, tr, Options{}); err != nil {
		t.Fatal(err)
	}
	if n := len(tr.Containers); n != trace.MaxDepth+1 {
		t.Fatalf("%d containers, want %d and the root", n, trace.MaxDepth)
	}
	header := strings.Count(strings.Split(miniHeader, "0 P 0")[0], "\n")
	for _, n := range []int{trace.MaxDepth + 1, 3 * trace.MaxDepth} {
		err := Decode(strings.NewReader(sameTypeChain(n)), "deep.trace", 0, trace.New(), Options{})
		var fe *errs.FormatError
		want := fmt.Sprintf(`container "c%d" would be nested %d levels deep, more than %d`, trace.MaxDepth+1, trace.MaxDepth+1, trace.MaxDepth)
		if !errors.As(err, &fe) || fe.File != "deep.trace" || fe.Line != header+2+trace.MaxDepth || !strings.Contains(err.Error(), want) {
			t.Errorf("a chain of %d: got %v, want deep.trace:%d: %s", n, err, header+2+trace.MaxDepth, want)
		}
	}
}
