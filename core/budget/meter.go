package budget

import (
	"fmt"
	"sync"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Meter weighs the memory a reader holds outside its sink
// (trace.ReadOptions.Hold: a document parsed whole, the records of a
// database gathered before they are delivered) against a budget, with
// what the sink holds (Base, if set: a trace filling, see Guard). Past the
// limit it calls Over once, which stops the read, and Hold returns the
// error, which names the figure reached and the budget. Safe for the
// goroutines of a read by parts.
type Meter struct {
	Limit int64        // bytes; <= 0: no limit
	Over  func()       // called once, when the limit is passed
	Base  func() int64 // what the sink holds, weighed with the reader's; nil: nothing

	mu   sync.Mutex
	held int64
	peak int64
	err  error
}

// NewMeter returns a Meter under the budget a user's setting means (see
// Resolve).
func NewMeter(setting int64, over func()) *Meter {
	return &Meter{Limit: Resolve(setting), Over: over}
}

// Hold records n bytes more held by the reader (fewer when negative) and
// returns the budget's error once they, with Base, exceed the limit.
func (m *Meter) Hold(n int64) error {
	m.mu.Lock()
	m.held += n
	m.peak = max(m.peak, m.held)
	if m.err != nil || m.Limit <= 0 || n <= 0 {
		err := m.err
		m.mu.Unlock()
		return err
	}
	total := m.held
	if m.Base != nil {
		total += m.Base()
	}
	if total <= m.Limit {
		m.mu.Unlock()
		return nil
	}
	m.err = errs.Argument("memory_budget", "%s", fmt.Sprintf(
		"the read holds %s of the trace in memory (%s gathered by the reader before it delivers them), more than the memory budget of %s (%s); "+
			"raise memory_budget=, or read a smaller part of the trace",
		Bytes(total), Bytes(m.held), Bytes(m.Limit), describe()))
	err, over := m.err, m.Over
	m.mu.Unlock()
	if over != nil {
		over()
	}
	return err
}

// Held returns the bytes the reader holds now.
func (m *Meter) Held() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.held
}

// Peak returns the most bytes the reader held at once.
func (m *Meter) Peak() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.peak
}

// Err returns the error of a read that outgrew its budget, nil otherwise.
func (m *Meter) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}
