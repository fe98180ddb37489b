package chrome

import (
	"bytes"
	"os"
	"testing"
)

// BenchmarkParseEvents reads the events of a trace with the event reader
// alone, on one goroutine and without a collector: the parsing's share of
// a read. CHROME_BENCH_JSON names a plain JSON file to read instead of
// the benchmark trace.
func BenchmarkParseEvents(b *testing.B) {
	var plain []byte
	if path := os.Getenv("CHROME_BENCH_JSON"); path != "" {
		var err error
		if plain, err = os.ReadFile(path); err != nil {
			b.Fatal(err)
		}
	} else {
		_, plain = loadBench(b)
	}
	at := bytes.Index(plain, []byte(`"traceEvents"`))
	if at < 0 {
		b.Fatal("no traceEvents array")
	}
	at += bytes.IndexByte(plain[at:], '[') + 1
	b.SetBytes(int64(len(plain)))
	start := cpuTime()
	for b.Loop() {
		sc := newBytesScanner("bench", plain, 1)
		sc.pos = at
		d := &decoder{file: "bench", sc: sc, strs: newInterner(), col: &collector{}}
		d.col.strs = d.strs
		for {
			if c, ok := sc.peek(); !ok || c != '{' {
				b.Fatal("expected an event")
			}
			if !d.readEventFast(&d.ev) {
				if err := d.readEvent(&d.ev); err != nil {
					b.Fatal(err)
				}
			}
			c, _ := sc.peek()
			sc.pos++
			if c == ']' {
				break
			}
			if c != ',' {
				b.Fatal("expected ',' or ']' after an event")
			}
		}
	}
	reportCPU(b, len(plain), start)
}
