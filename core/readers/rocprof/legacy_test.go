package rocprof

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Counts from Python's csv module: 167 rows in both v1 files, 3 in the v2
// files; the SQ_LEVEL_WAVES files have 9 counter columns each.
func TestLegacyCSV(t *testing.T) {
	cases := []struct {
		file       []string
		kernels    int
		counters   int64
		first      string
		start, end trace.Time
		queue      string
	}{
		{[]string{"Axes1_mi200_rocprofv1", "timestamps.csv"}, 167, 0, "__amd_rocclr_fillBufferAligned.kd",
			17250653618423, 17250653858583, "Host/GPU 0/Queue 0"},
		{[]string{"Axes1_mi200_rocprofv1", "SQ_LEVEL_WAVES.csv"}, 167, 167 * 9, "__amd_rocclr_fillBufferAligned.kd",
			17230723230837, 17231579793472, "Host/GPU 0/Queue 0"},
		{[]string{"kernel_MI300X_rocprofv2", "SQ_LEVEL_WAVES.csv"}, 3, 3 * 9, "vecCopy(double*, double*, double*, int, int) (.kd)",
			716479545398906, 716479545415785, "Host/GPU 60633/Queue 1"},
		{[]string{"kernel_MI300X_rocprofv2", "timestamps.csv"}, 3, 0, "vecCopy(double*, double*, double*, int, int) (.kd)",
			716479545398906, 716479545415785, "Host/GPU 60633/Queue 1"},
	}
	for _, c := range cases {
		path := corpus(t, append([]string{"rocprof-v1v2-csv"}, c.file...)...)
		tr, notes := load(t, func(s trace.Sink, o trace.ReadOptions) error { return readLegacyCSV(path, false, s, o) })
		if got := fmt.Sprint(statesByType(tr)); got != fmt.Sprintf("map[Kernel:%d]", c.kernels) {
			t.Errorf("%s: states %s", path, got)
		}
		if got := notes.Skipped()["counter values (one per kernel dispatch and counter column)"]; got != c.counters {
			t.Errorf("%s: %d counter values skipped, want %d", path, got, c.counters)
		}
		found := false
		for _, s := range tr.States.All() {
			if s.Start == c.start && s.End == c.end && tr.Values[s.Value].Name == c.first && fullName(tr, s.Container) == c.queue {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: first row not found exactly", path)
		}
	}
}

// Omniperf's rocprofv2 timestamps on an MI300A spell the queue's columns
// as v1 does (queue-id), the rest as v2 (testdata/omniperf-mi300a: 6
// rows, 2 per target region, by Python's csv module). They were refused
// as "not a rocprof v1/v2 CSV file".
func TestLegacyCSVOmniperfQueueColumns(t *testing.T) {
	path := filepath.Join("testdata", "omniperf-mi300a", "timestamps.csv")
	head, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !sniffLegacy(head) {
		t.Errorf("%s is not sniffed as rocprof v1/v2 CSV", path)
	}
	tr, _ := load(t, func(s trace.Sink, o trace.ReadOptions) error { return readLegacyCSV(path, true, s, o) })
	byName := map[string]int{}
	for _, s := range tr.States.All() {
		byName[tr.Values[s.Value].Name]++
		if got := fullName(tr, s.Container); got != "Host/GPU 4/Queue 0" {
			t.Errorf("dispatch on %q, want Host/GPU 4/Queue 0", got)
		}
	}
	want := map[string]int{
		"__omp_offloading_32_6b6b__QQmain_l18.kd": 2,
		"__omp_offloading_32_6b6b__QQmain_l41.kd": 2,
		"__omp_offloading_32_6b6b__QQmain_l61.kd": 2,
	}
	if fmt.Sprint(byName) != fmt.Sprint(want) {
		t.Errorf("dispatches %v, want %v", byName, want)
	}
	found := false
	for _, s := range tr.States.All() {
		found = found || s.Start == 4512700137147443 && s.End == 4512700567794144
	}
	if !found {
		t.Errorf("no dispatch at 4512700137147443-4512700567794144, the first row's Start_Timestamp and End_Timestamp")
	}
}

// rocprof v1's results.db (testdata/rocprof-v1-db) holds results.csv's
// rows in a table KERN; it is named as rocprofv3's rocpd database and was
// refused as "not a rocpd database". Figures from the results.csv beside
// it (Python's csv module): 1,004 dispatches, their durations summing to
// 2,648,556,655 ns, the second laplacian_kernel on GPU 8, queue 0.
func TestLegacyDB(t *testing.T) {
	path := filepath.Join("testdata", "rocprof-v1-db", "results.db")
	tr, notes := load(t, func(s trace.Sink, o trace.ReadOptions) error { return readRocpd(path, s, o) })
	byName := map[string]int{}
	var total trace.Time
	found := false
	for _, s := range tr.States.All() {
		byName[tr.Values[s.Value].Name]++
		total += s.End - s.Start
		found = found || s.Start == 2001401021036510 && s.End == 2001401023684049 &&
			tr.Values[s.Value].Name == "laplacian_kernel" && fullName(tr, s.Container) == "Host/GPU 8/Queue 0"
	}
	want := map[string]int{"laplacian_kernel": 1001, "test_function_kernel": 1, "check_kernel": 1, "__amd_rocclr_fillBufferAligned.kd": 1}
	if fmt.Sprint(byName) != fmt.Sprint(want) {
		t.Errorf("dispatches %v, want %v", byName, want)
	}
	if total != 2648556655 {
		t.Errorf("durations sum to %d ns, want 2648556655", total)
	}
	if !found {
		t.Error("no laplacian_kernel on Host/GPU 8/Queue 0 at 2001401021036510-2001401023684049 (results.csv's second row)")
	}
	if len(notes.Skipped()) != 0 {
		t.Errorf("skipped %v, want nothing", notes.Skipped())
	}
}
