package gotrace_test

import (
	"os"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/readers/gotrace"
)

// TestNoOtherFormatClaims checks that no other registered format's
// content sniffing takes a Go trace for its own: a Go trace named
// x.trace, Pajé's extension, goes on to the content test, which only
// gotrace.Format.Sniff passes.
func TestNoOtherFormatClaims(t *testing.T) {
	head, err := os.ReadFile("testdata/fib4.trace")
	if err != nil {
		t.Fatal(err)
	}
	head = head[:min(len(head), 4096)]
	if !gotrace.Format.Sniff(head) {
		t.Fatal("gotrace.Format.Sniff refuses a Go trace")
	}
	for _, f := range formats.All {
		if f.Name != gotrace.Format.Name && f.Sniff != nil && f.Sniff(head) {
			t.Errorf("format %s claims a Go trace", f.Name)
		}
	}
}
