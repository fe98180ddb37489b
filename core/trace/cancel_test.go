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

// TestLooker: a Looker looks at its first step, then once the items
// counted reach trace.StopEvery more, whatever their steps, and not
// between; it stays stopped; a nil channel never stops.
func TestLooker(t *testing.T) {
	closed := make(chan struct{})
	close(closed)
	if err := (&Looker{Cancel: closed}).Stopped(0); !errors.Is(err, ErrComputationCanceled) {
		t.Fatalf("first step: %v, want a look at once", err)
	}
	ch := make(chan struct{})
	k := &Looker{Cancel: ch}
	if err := k.Stopped(1); err != nil {
		t.Fatal(err)
	}
	close(ch)
	done := 1
	for _, step := range []int{7, 1000, 3, 5000} {
		if err := k.Stopped(step); err != nil {
			t.Fatalf("looked after %d items, before %d", done, 1+StopEvery)
		}
		done += step
	}
	if err := k.Stopped(1 + StopEvery - done); !errors.Is(err, ErrComputationCanceled) {
		t.Fatalf("not stopped after %d items: %v", 1+StopEvery, err)
	}
	if err := k.Stopped(0); !errors.Is(err, ErrComputationCanceled) {
		t.Fatalf("not stopped at the next step: %v", err)
	}
	var none Looker
	for range 3 {
		if err := none.Stopped(StopEvery); err != nil {
			t.Fatalf("nil channel: %v", err)
		}
	}
}
