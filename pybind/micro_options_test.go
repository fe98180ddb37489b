package pybind

import (
	"errors"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/micro"
)

// TestMicroKeyOption checks that Trace.micro's key reaches the model's
// options, and that a bad key is refused as an argument.
func TestMicroKeyOption(t *testing.T) {
	for js, want := range map[string]micro.Key{`{}`: "", `{"key":"cat"}`: "cat", `{"key":"category"}`: micro.KeyCategory} {
		opt, err := parseMicroOptions(js)
		if err != nil || opt.Key != want {
			t.Errorf("%s: key %q, %v; want %q", js, opt.Key, err, want)
		}
	}
	_, err := micro.NewAccumulator(micro.Options{Slices: 2, Key: "names"}, 0, 10)
	var ae *errs.ArgumentError
	if !errors.As(err, &ae) || ae.Name != "key" {
		t.Errorf("bad key: %v", err)
	}
}
