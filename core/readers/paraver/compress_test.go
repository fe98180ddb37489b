package paraver

import (
	"os"
	"strconv"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
)

// TestCompressed reads a synthetic trace, and qsort from the corpus when
// it is there, compressed with gzip, bzip2 and zstd, cut in the middle,
// and as a decompression bomb.
func TestCompressed(t *testing.T) {
	var b []byte
	b = append(b, twoThreads...)
	for i := range 20000 {
		b = append(b, "1:1:1:1:1:"...)
		b = append(b, strconv.Itoa(10*i)...)
		b = append(b, ':')
		b = append(b, strconv.Itoa(10*i+5)...)
		b = append(b, ":1\n2:2:1:2:1:"...)
		b = append(b, strconv.Itoa(10*i+7)...)
		b = append(b, ":42000050:18446744073709551615\n"...)
	}
	t.Run("synthetic", func(t *testing.T) { readertest.CheckCompressed(t, Format, "t.prv", b) })
	t.Run("qsort", func(t *testing.T) {
		plain, err := os.ReadFile(qsort)
		if err != nil {
			t.Skipf("corpus not available: %v", err)
		}
		readertest.CheckCompressed(t, Format, "qsort.prv", plain)
	})
}
