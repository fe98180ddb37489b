package gotrace

import (
	"bufio"
	"errors"

	"github.com/macroscope-hpc/macroscope/core/ingest"
)

// The decoding and the merge of a trace run on a goroutine of their own,
// ahead of the model's builder, which reads their events in chunks: the
// merge and the builder each take about half of a read, and both are
// sequential, so they run on two cores at once.

// chunk is a run of merged events handed from the merge to the builder.
type chunk struct {
	events []mergedEvent
	gen    *wireGeneration // the generation of the events (a chunk holds one's)
	names  []string        // the names of the tasks its UserTaskEnd events end
	read   int64           // bytes of input read when it was handed over, for progress
	last   bool            // the merge's last chunk: err is its outcome
	err    error           // the end of the merge (nil: the trace was read to its end)
	panic  any             // the merge panicked (on input no check caught), with this
}

// chunksInFlight is how many chunks the merge may fill ahead of the
// builder.
const chunksInFlight = 4

// pipe is the merge running ahead of the builder.
type pipe struct {
	chunks chan *chunk // merged events, in order
	free   chan *chunk // chunks the builder is done with
	quit   chan struct{}
	done   chan struct{}
}

// errQuit stops the merge when the builder stops early (canceled).
var errQuit = errors.New("the builder stopped")

// startPipe decodes and merges the generations of a trace of Go 1.ver
// from br on a new goroutine; counted counts the bytes read.
func startPipe(br *bufio.Reader, ver int, counted *ingest.Counter) *pipe {
	p := &pipe{
		chunks: make(chan *chunk, chunksInFlight),
		free:   make(chan *chunk, chunksInFlight+2),
		quit:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	for range chunksInFlight + 2 {
		p.free <- &chunk{events: make([]mergedEvent, 0, handEvery+8)}
	}
	go p.run(br, ver, counted)
	return p
}

// stop lets the merge go and waits for it to end: nothing reads the
// input after it returns.
func (p *pipe) stop() {
	close(p.quit)
	<-p.done
}

// next returns the next chunk; the builder gives it back (recycle) once
// read.
func (p *pipe) next() *chunk { return <-p.chunks }

func (p *pipe) recycle(c *chunk) {
	c.events, c.names, c.gen = c.events[:0], c.names[:0], nil
	p.free <- c
}

func (p *pipe) run(br *bufio.Reader, ver int, counted *ingest.Counter) {
	defer close(p.done)
	cur := <-p.free
	// hand passes cur to the builder and takes a free chunk; false if
	// the builder has stopped.
	hand := func() bool {
		cur.read = counted.N()
		select {
		case p.chunks <- cur:
		case <-p.quit:
			return false
		}
		if cur.last {
			return true
		}
		select {
		case cur = <-p.free:
		case <-p.quit:
			return false
		}
		return true
	}
	defer func() {
		if !recoverPanics {
			return
		}
		if v := recover(); v != nil {
			// The builder's goroutine panics again with it, where
			// the reader recovers a panic as a fault of the input.
			cur.last, cur.panic = true, v
			hand()
		}
	}()
	// The merge fills the chunk's buffers; handed over, they are the
	// builder's until it gives them back, and the merge takes free ones.
	mg := newMerger(func(events []mergedEvent, names []string, g *wireGeneration) ([]mergedEvent, []string, error) {
		cur.events, cur.names, cur.gen = events, names, g
		if !hand() {
			return events[:0], names[:0], errQuit
		}
		return cur.events[:0], cur.names[:0], nil
	})
	var mergeErr error
	err := decodeWire(br, ver, 0, func(gen *wireGeneration) error {
		mergeErr = mg.generation(gen)
		return mergeErr
	})
	if err == nil || err != mergeErr {
		// The end, or a generation that cannot be read: the parser
		// marks the end of the last generation it delivered first.
		if ferr := mg.finish(); err == nil {
			err = ferr
		}
	}
	if errors.Is(err, errQuit) {
		return
	}
	cur.last, cur.err = true, err
	hand()
}
