package chrome

import (
	"bytes"
	"os"
	"testing"
)

// BenchmarkParseEvents reads the events of a trace with the event reader
// alone, no collector: the parsing's share of a read. CHROME_BENCH_JSON
// names a plain JSON file to read instead of the benchmark trace.
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
	at += bytes.IndexByte(plain[at:], '[') + 1
	vector := hasVectorIndex
	defer func() { hasVectorIndex = vector }()
	for _, index := range []bool{false, true} {
		hasVectorIndex = vector && index
		b.Run(map[bool]string{false: "swar", true: "index"}[index], func(b *testing.B) { parseEvents(b, plain, at) })
	}
}

func parseEvents(b *testing.B, plain []byte, at int) {
	b.SetBytes(int64(len(plain)))
	start := cpuTime()
	events := 0
	for b.Loop() {
		sc := newBytesScanner("bench", plain, 1)
		sc.pos = at
		d := &decoder{file: "bench", sc: sc, strs: newInterner(), col: &collector{}}
		d.col.strs = d.strs
		for {
			if _, ok := sc.peek(); !ok {
				b.Fatal("no end")
			}
			if !d.readEventFast(&d.ev) {
				if err := d.readEvent(&d.ev); err != nil {
					b.Fatal(err)
				}
			}
			events++
			c, _ := sc.peek()
			sc.pos++
			if c == ']' {
				break
			}
		}
	}
	reportCPU(b, len(plain), start)
}
