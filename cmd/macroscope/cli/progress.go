package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/macroscope-hpc/macroscope/core/budget"
)

// progress shows how far a long step (a read, a sweep) has come, on a
// terminal only: after a second, a line on standard error rewritten a few
// times a second, erased when the step ends. Elsewhere (a pipe, a file, a
// test) it shows nothing, so that the report stays what it is.
type progress struct {
	done, total atomic.Int64
	quit        chan struct{}
	wg          sync.WaitGroup
}

// progressDelay is how long a step runs before its progress is shown, and
// progressEvery how often the line is redrawn.
const (
	progressDelay = time.Second
	progressEvery = 200 * time.Millisecond
)

// startProgress starts showing the progress of the step what on w, in
// unit ("bytes", or "" for a part of 1000).
func startProgress(w io.Writer, what, unit string) *progress {
	p := &progress{}
	if !isTerminal(w) {
		return p
	}
	p.quit = make(chan struct{})
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		began := time.Now()
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		shown := ""
		for {
			select {
			case <-p.quit:
				if shown != "" {
					fmt.Fprint(w, "\r\033[K")
				}
				return
			case <-tick.C:
			}
			if time.Since(began) < progressDelay {
				continue
			}
			done, total := p.done.Load(), p.total.Load()
			line := what
			switch {
			case total > 0 && unit == "bytes":
				line += fmt.Sprintf(": %3.0f%% (%s of %s)", 100*float64(done)/float64(total), budget.Bytes(done), budget.Bytes(total))
			case total > 0:
				line += fmt.Sprintf(": %3.0f%%", 100*float64(done)/float64(total))
			case unit == "bytes":
				line += ": " + budget.Bytes(done)
			}
			if line = fmt.Sprintf("%s, %.0f s", line, time.Since(began).Seconds()); line != shown {
				fmt.Fprint(w, "\r\033[K"+line)
				shown = line
			}
		}
	}()
	return p
}

// update records the progress: done of total (0: unknown).
func (p *progress) update(done, total int64) {
	p.done.Store(done)
	p.total.Store(total)
}

// stop ends the display and erases its line.
func (p *progress) stop() {
	if p.quit != nil {
		close(p.quit)
		p.wg.Wait()
		p.quit = nil
	}
}

// isTerminal tells whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0 && os.Getenv("TERM") != "dumb"
}
