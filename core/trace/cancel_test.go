package trace

import (
	"errors"
	"testing"
)

func TestCanceled(t *testing.T) {
	var none ReadOptions
	if err := none.Canceled(); err != nil {
		t.Fatalf("no Cancel channel: %v", err)
	}
	ch := make(chan struct{})
	opt := ReadOptions{Cancel: ch}
	if err := opt.Canceled(); err != nil {
		t.Fatalf("open channel: %v", err)
	}
	close(ch)
	if err := opt.Canceled(); !errors.Is(err, ErrCanceled) {
		t.Fatalf("closed channel: %v, want ErrCanceled", err)
	}
}
