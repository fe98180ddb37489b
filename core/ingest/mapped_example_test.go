package ingest_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/ingest"
)

// A reader maps a plain file large enough to be worth it, and reads the
// others, compressed or small, as a stream. While it reads the mapping,
// a fault (the file cut short by another program) becomes the error of
// the read through RecoverFault, and an error the zeros past the file's
// new end caused says so through ExplainShrank.
func ExampleMapPlain() {
	dir, _ := os.MkdirTemp("", "mapped")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "lines.txt")
	os.WriteFile(path, []byte(strings.Repeat("0123456789abcde\n", 256)), 0o644)

	count := func(path string) (lines int, err error) {
		f, err := os.Open(path)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		data, unmap, ok := ingest.MapPlain(f, 1024)
		if !ok {
			return -1, nil // read as a stream instead
		}
		defer unmap()
		defer ingest.ExplainShrank(f, data, path, &err)
		defer ingest.RecoverFault(path, &err)
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		return bytes.Count(data, []byte("\n")), nil
	}
	fmt.Println(count(path))
	os.Truncate(path, 1000)
	fmt.Println(count(path))
	// Output:
	// 256 <nil>
	// -1 <nil>
}
