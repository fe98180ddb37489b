package formats

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// mutationSamples are real traces of every format, from the shared
// corpus: the trace (a file, or a directory with anchor the file named),
// and the files of it that are damaged, one at a time.
var mutationSamples = []struct {
	format  string
	dir     string // the directory copied, relative to the corpus
	anchor  string // the path read, relative to the copy ("": the copy)
	damaged []string
}{
	{"paje", "pajeng/traces", "ms.trace", []string{"ms.trace"}},
	{"otf2", "pipit/tests/data/ping-pong-otf2", "traces.otf2", []string{"traces.otf2", "traces.def", "traces/0.def", "traces/0.evt"}},
	{"paraver", "paraver/test/cutter", "qsort_beo3.prv", []string{"qsort_beo3.prv", "qsort_beo3.pcf"}},
	{"chrome", "hta/tests/data/critical_path/end_to_end/simple_add/input", "trace.json.gz", []string{"trace.json.gz"}},
	{"chrome", "rocprof/rpd", "matmul_result.json", []string{"matmul_result.json"}},
	{"gotrace", "go-runtime/generated-go1.26", "annotations.trace", []string{"annotations.trace"}},
	{"gotrace", "go-runtime/v1-binary", "user_task_region_1_21_good", []string{"user_task_region_1_21_good"}},
	{"perfetto", "perfetto/perfetto", "nested_tracks.perfetto-trace", []string{"nested_tracks.perfetto-trace"}},
	{"rocprofv3-csv", "rocprof/rocprofv3-docs", "kernel_trace.csv", []string{"kernel_trace.csv"}},
	{"hpctoolkit", "hpctoolkit-db/vectorAdd", "", []string{"meta.db", "profile.db", "trace.db", "cct.db"}},
	{"nsys", "nsys", "h100_2gpu_1s.sqlite", []string{"h100_2gpu_1s.sqlite"}},
	{"pjdump", "starvz/extra_data/qr_trace", "", []string{"paje.worker_state.csv.gz", "entities.csv"}},
	{"rpd", "rocprof/rpd", "matmul_result.rpd", []string{"matmul_result.rpd"}},
}

// A mutation of a file's bytes.
type mutation struct {
	name string
	of   func(data []byte) []byte
}

// numberRe finds the numbers of a text file, which mutations replace by
// hostile ones.
var numberRe = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?`)

// mutations returns the damages done to data: cuts, flipped bytes,
// runs of 0xff (counts and lengths of billions), and, in text, numbers
// replaced by huge, negative, NaN and infinite ones, all seeded by seed.
func mutations(data []byte, seed uint64) []mutation {
	r := rand.New(rand.NewPCG(seed, 44))
	var out []mutation
	for i := 1; i < 8; i++ {
		at := len(data) * i / 8
		out = append(out, mutation{fmt.Sprintf("cut at %d", at), func(d []byte) []byte { return d[:at] }})
	}
	for range 12 {
		at, x := r.IntN(max(len(data), 1)), byte(1+r.IntN(255))
		out = append(out, mutation{fmt.Sprintf("byte %d ^ %#x", at, x), func(d []byte) []byte {
			if at < len(d) {
				d[at] ^= x
			}
			return d
		}})
	}
	for range 12 {
		at, n := r.IntN(max(len(data), 1)), 1+r.IntN(8)
		out = append(out, mutation{fmt.Sprintf("%d bytes 0xff at %d", n, at), func(d []byte) []byte {
			for k := at; k < min(at+n, len(d)); k++ {
				d[k] = 0xff
			}
			return d
		}})
	}
	if isText(data) {
		numbers := numberRe.FindAllIndex(data, -1)
		for _, v := range []string{"99999999999999999999999", "-1", "-9223372036854775808", "NaN", "Inf", "-Inf", "1e308", "2147483648"} {
			for range 3 {
				if len(numbers) == 0 {
					break
				}
				loc := numbers[r.IntN(len(numbers))]
				out = append(out, mutation{fmt.Sprintf("number at %d = %s", loc[0], v), func(d []byte) []byte {
					return append(append(append([]byte(nil), d[:loc[0]]...), v...), d[loc[1]:]...)
				}})
			}
		}
	}
	return out
}

func isText(data []byte) bool {
	head := data[:min(len(data), 512)]
	return len(head) > 0 && bytes.IndexByte(head, 0) < 0 && !bytes.HasPrefix(head, []byte{0x1f, 0x8b})
}

// TestMutatedRealTraces damages real traces of every format (cut, bytes
// flipped, counts and lengths made huge, numbers made huge, negative,
// NaN or infinite) and reads each through the door: the read ends (a
// minute at most: no hang), without a panic, with a trace or a
// FormatError naming a file of the trace (or an EmptyError: nothing
// left to model), and allocates less than 1 GiB for inputs of a few
// hundred kilobytes (a declared length is not allocated up front).
func TestMutatedRealTraces(t *testing.T) {
	if testing.Short() {
		t.Skip("reads some 400 damaged traces")
	}
	seeds := 1
	if s, err := strconv.Atoi(os.Getenv("MACROSCOPE_MUTATION_SEEDS")); err == nil && s > 0 {
		seeds = s
	}
	for _, s := range mutationSamples {
		src := filepath.Join(shared, s.dir)
		if _, err := os.Stat(src); err != nil {
			t.Logf("%s: the corpus is not here (%v)", s.dir, err)
			continue
		}
		for _, damaged := range s.damaged {
			orig, err := os.ReadFile(filepath.Join(src, damaged))
			if err != nil {
				t.Fatal(err)
			}
			// A gzip-compressed file is damaged as it is (its checksum
			// catches most damage) and inside, compressed again.
			all := func(seed uint64) []mutation { return mutations(orig, seed) }
			if inner, err := gunzip(orig); err == nil {
				all = func(seed uint64) []mutation {
					ms := mutations(orig, seed)
					for _, m := range mutations(inner, seed) {
						ms = append(ms, mutation{"inside: " + m.name, func([]byte) []byte { return gzipped(m.of(bytes.Clone(inner))) }})
					}
					return ms
				}
			}
			for seed := range seeds {
				for _, m := range all(uint64(seed)) {
					label := fmt.Sprintf("%s %s/%s: %s", s.format, s.dir, damaged, m.name)
					dir := copyTree(t, src, t.TempDir())
					file := filepath.Join(dir, damaged)
					os.Chmod(file, 0o644)
					if err := os.WriteFile(file, m.of(bytes.Clone(orig)), 0o644); err != nil {
						t.Fatal(err)
					}
					path := filepath.Join(dir, s.anchor)
					checkMutated(t, label, s.format, dir, path)
					os.RemoveAll(filepath.Dir(dir))
				}
			}
		}
	}
}

func checkMutated(t *testing.T, label, format, dir, path string) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	type result struct {
		notes *trace.Notes
		err   error
		panic any
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{panic: p}
			}
		}()
		src, _, err := Open(path, format, nil)
		if err != nil {
			done <- result{err: err}
			return
		}
		notes := &trace.Notes{}
		err = src.Read(trace.New(), trace.ReadOptions{Notes: notes})
		done <- result{notes: notes, err: err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s: the read has not ended after a minute", label)
	}
	runtime.ReadMemStats(&after)
	if r.panic != nil {
		t.Errorf("%s: panic: %v", label, r.panic)
		return
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<30 {
		t.Errorf("%s: %d MB allocated", label, alloc>>20)
	}
	if r.err == nil {
		return
	}
	var fe *errs.FormatError
	var ee *errs.EmptyError
	switch {
	case errors.As(r.err, &fe):
		if !strings.HasPrefix(fe.File, dir) {
			t.Errorf("%s: %v: the error names %q, not a file of the trace", label, r.err, fe.File)
		}
	case errors.As(r.err, &ee):
	default:
		t.Errorf("%s: %v (%T), want a FormatError naming a file of the trace", label, r.err, r.err)
	}
}

func gunzip(data []byte) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

func gzipped(data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}
