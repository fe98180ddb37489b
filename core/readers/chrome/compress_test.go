package chrome

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
)

// TestCompressed: JSON compressed with gzip, bzip2 or zstd reads as the
// plain file; whitespace expanding past max_decompressed stops the read.
func TestCompressed(t *testing.T) {
	plain := []byte(`{"traceEvents":[
{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":2,"dur":4},
{"ph":"B","name":"step","pid":1,"tid":1,"ts":0},{"ph":"E","pid":1,"tid":1,"ts":9},
{"ph":"C","name":"mem","pid":1,"ts":1,"args":{"bytes":12}}]}`)
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	want, err := readertest.ReadFormat(t, Format, write("t.json", plain), nil)
	if err != nil || want.States.Len() != 2 || want.Variables.Len() != 1 {
		t.Fatalf("plain: %v, %d states", err, want.States.Len())
	}
	t.Run("trailing", func(t *testing.T) { readertest.CheckTrailing(t, Format, "t.json", plain) })
	for _, kind := range readertest.Compressions {
		got, err := readertest.ReadFormat(t, Format, write("t.json."+kind, readertest.Compress(t, plain, kind)), nil)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if diff := readertest.Difference(got, want); diff != "" {
			t.Errorf("%s reads differently: %s", kind, diff)
		}
		// 8 MB of blanks in an array: valid JSON, far past a 1 MB limit.
		bomb := append([]byte("["), bytes.Repeat([]byte(" "), 8<<20)...)
		path := write("bomb.json."+kind, readertest.Compress(t, bomb, kind))
		_, err = readertest.ReadFormat(t, Format, path, ingest.Values{"max_decompressed": 1 << 20})
		if err == nil || !strings.Contains(err.Error(), "expands past 1048576 bytes") || !strings.Contains(err.Error(), path) {
			t.Errorf("%s bomb: %v", kind, err)
		}
	}
}
