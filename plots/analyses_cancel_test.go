package plots

import (
	"bytes"
	"errors"
	"image/color"
	"strconv"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
)

// canceledFigure is tracetest.Canceled for images (a slice, not
// comparable): closed, no image and the cancellation; open, the bytes
// drawn without a channel.
func canceledFigure(t *testing.T, name string, draw func(cancel <-chan struct{}) ([]byte, error)) {
	t.Helper()
	if img, err := draw(tracetest.Closed()); !errors.Is(err, trace.ErrComputationCanceled) || img != nil {
		t.Errorf("%s with Cancel closed: an image %v, error %v; want none and the cancellation", name, img != nil, err)
	}
	want, err := draw(nil)
	if err != nil || len(want) == 0 {
		t.Fatalf("%s: %v", name, err)
	}
	if got, err := draw(make(chan struct{})); err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s with Cancel open: %v, not the bytes drawn without it", name, err)
	}
}

// The heat map of 300 x 300 cells and the path chart of 20,000 segments,
// with Cancel closed, return trace.ErrComputationCanceled and no image;
// with it open, the bytes drawn without it.
func TestAnalysisFiguresCanceled(t *testing.T) {
	const n = 300
	labels := make([]string, n)
	values := make([][]float64, n)
	for i := range n {
		labels[i] = "rank " + strconv.Itoa(i)
		values[i] = make([]float64, n)
		for j := range n {
			values[i][j] = float64((i*7 + j*13) % 101)
		}
	}
	canceledFigure(t, "Heatmap", func(cancel <-chan struct{}) ([]byte, error) {
		return Heatmap(labels, labels, values, false, "bytes", "destination", "source", FigureOptions{Cancel: cancel})
	})

	const segments = 20_000
	rows := labels[:16]
	spans := make([][2]float64, len(rows))
	for i := range spans {
		spans[i] = [2]float64{0, segments}
	}
	segs := make([]PathSegment, segments)
	for i := range segs {
		segs[i] = PathSegment{Row: i % len(rows), Start: float64(i), End: float64(i) + 0.8, Color: color.RGBA{uint8(i), 80, 160, 255}}
	}
	canceledFigure(t, "PathChart", func(cancel <-chan struct{}) ([]byte, error) {
		return PathChart(rows, spans, segs, nil, nil, 0, segments, "time", FigureOptions{Cancel: cancel})
	})
}
