package pjdump

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// chainDump is pj_dump's output for a chain of n containers, each in the
// one before, with a state in the deepest.
func chainDump(n int) string {
	var b strings.Builder
	b.WriteString("Container, 0, 0, 0, 3, 3, 0\n")
	b.WriteString("Container, 0, T1, 0, 3, 3, c1\n")
	for i := 2; i <= n; i++ {
		fmt.Fprintf(&b, "Container, c%d, T%d, 0, 3, 3, c%d\n", i-1, i, i)
	}
	fmt.Fprintf(&b, "State, c%d, S, 0.000000, 1.000000, 1.000000, 0.000000, a\n", n)
	return b.String()
}

// TestContainerDepth: a hierarchy as deep as trace.MaxDepth is read; a
// container one level deeper is refused on its line, where a chain of any
// length was read (a million containers in 46 MB), into a hierarchy whose
// recursive walks overflow a goroutine's stack, a fatal error.
func TestContainerDepth(t *testing.T) {
	tr := trace.New()
	in := chainDump(trace.MaxDepth)
	if err := decodeStream(bytes.NewReader([]byte(in)), "d.csv", int64(len(in)), tr, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := len(tr.Containers); n != trace.MaxDepth+1 || tr.States.Len() != 1 {
		t.Fatalf("%d containers and %d states, want %d and the root, 1", n, tr.States.Len(), trace.MaxDepth)
	}
	in = chainDump(trace.MaxDepth + 1)
	err := decodeStream(bytes.NewReader([]byte(in)), "d.csv", int64(len(in)), trace.New(), trace.ReadOptions{})
	var fe *errs.FormatError
	want := fmt.Sprintf(`container "c%d" would be nested %d levels deep, more than %d`, trace.MaxDepth+1, trace.MaxDepth+1, trace.MaxDepth)
	if !errors.As(err, &fe) || fe.File != "d.csv" || fe.Line != trace.MaxDepth+2 || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want d.csv:%d: %s", err, trace.MaxDepth+2, want)
	}
}
