package xplane

import (
	"io"
	"os"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// maxFuzzInput bounds the inputs FuzzDecode reads: the fuzzer minimizes
// every new input at one execution per byte removed.
const maxFuzzInput = 32 << 10

// FuzzDecode feeds arbitrary bytes to the reader and the sniffer: they
// must not panic, the reader fails only with a FormatError naming the
// file, and what it delivers keeps the Sink contract and nests.
func FuzzDecode(f *testing.F) {
	readertest.BoundMinimization(f)
	if data, err := os.ReadFile("testdata/jax_cpu.xplane.pb"); err == nil {
		f.Add(data)
	}
	f.Add(cat(
		plane(1, "/device:GPU:0", line(7, "Stream #7", 1000, event(1, 0, 5000), event(1, 1000, 9000)), meta(1, "k", "K")),
		plane(0, "/host:CPU", line(3, "python", 500, event(1, 0, 10_000, sub(eventStats, sint(statMetadataID, 9), vint(statRef, 9)))),
			meta(1, "train", ""), statMeta(9, "step_name")),
	))
	f.Add(plane(0, "/device:TPU:0", line(1, "Steps", 0, event(1, 0, 1000)), line(1, "Steps", 5, event(1, 0, 10)), meta(1, "7", "")))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		sniff(data)
		tr := trace.New()
		sink := readertest.NewContract(tr)
		done := false
		err := decode("mem.xplane.pb", sink, trace.ReadOptions{Notes: &trace.Notes{}}, func([]byte) {}, func() ([]byte, string, error) {
			if done {
				return nil, "", io.EOF
			}
			done = true
			return data, "mem.xplane.pb", nil
		})
		readertest.CheckRead(t, "mem.xplane.pb", err, sink)
		if err != nil {
			return
		}
		for _, s := range tr.States.All() {
			if s.End < s.Start || s.Depth < 0 || s.Start < tr.Start || s.End > tr.End {
				t.Fatalf("state %+v in a trace spanning %v..%v", s, tr.Start, tr.End)
			}
		}
	})
}
