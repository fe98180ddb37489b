package xplane

import (
	"io"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// BenchmarkDecode reads a space of 64 lines of 16,384 events each,
// nested four deep, as a host's threads and a GPU's streams are.
func BenchmarkDecode(b *testing.B) {
	var lines [][]byte
	for l := range 64 {
		var events [][]byte
		for i := range 16384 {
			events = append(events, event(int64(1+i%8), int64(i/4)*4000_000+int64(i%4)*1000, 3_000_000-int64(i%4)*1000_000/2))
		}
		lines = append(lines, line(int64(l), "thread", 1000, events...))
	}
	var metas [][]byte
	for k := range 8 {
		metas = append(metas, meta(int64(1+k), "op."+string(rune('a'+k)), ""))
	}
	data := cat(plane(0, hostThreadsPlane, append(lines, metas...)...), str(spaceHostnames, "h"))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		done := false
		err := decode("bench.xplane.pb", trace.New(), trace.ReadOptions{}, func([]byte) {}, func() ([]byte, string, error) {
			if done {
				return nil, "", io.EOF
			}
			done = true
			return data, "bench.xplane.pb", nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
