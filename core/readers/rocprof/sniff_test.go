package rocprof

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/ingest"
)

// TestSniff checks that each sniffer recognises its variant and none
// other, among the corpus files and a Chrome trace-event JSON file (which
// rocprofv3 also writes, and the chrome reader reads).
func TestSniff(t *testing.T) {
	sniffers := map[string]func([]byte) bool{
		"json": sniffJSON, "csv": sniffCSV, "legacy": sniffLegacy,
	}
	cases := []struct {
		path []string
		want string // "" for none
	}{
		{[]string{"rocprofv3-tracelens", "908_results.json.gz"}, "json"},
		{[]string{"rpd", "matmul_result.json"}, ""},
		{[]string{"rocprofv3-csv", "decode_kernel_trace.csv"}, "csv"},
		{[]string{"rocprofv3-csv", "decode_hip_api_trace.csv"}, "csv"},
		{[]string{"rocprofv3-csv", "decode_stall_counter_collection.csv"}, "csv"},
		{[]string{"rocprofv3-docs", "memory_copy_trace.csv"}, "csv"},
		{[]string{"rocprofv3-docs", "marker_api_trace.csv"}, "csv"},
		{[]string{"rocprofv3-docs", "rccl_trace.csv"}, "csv"},
		{[]string{"rocprofv3-docs", "hip_api_stats.csv"}, ""},
		{[]string{"rocprof-v1v2-csv", "Axes1_mi200_rocprofv1", "timestamps.csv"}, "legacy"},
		{[]string{"rocprof-v1v2-csv", "Axes1_mi200_rocprofv1", "SQ_LEVEL_WAVES.csv"}, "legacy"},
		{[]string{"rocprof-v1v2-csv", "kernel_MI300X_rocprofv2", "timestamps.csv"}, "legacy"},
		{[]string{"rocprof-v1v2-csv", "kernel_MI300X_rocprofv2", "log.txt"}, ""},
		{[]string{"rpd", "matmul_result.rpd"}, ""}, // told by its extension
	}
	for _, c := range cases {
		path := corpus(t, c.path...)
		head, err := ingest.Head(path, 8192)
		if err != nil {
			t.Fatal(err)
		}
		for name, sniff := range sniffers {
			if got := sniff(head); got != (name == c.want) {
				t.Errorf("%s: %s sniffer says %v", path, name, got)
			}
		}
	}
	// Synthetic heads.
	for head, want := range map[string]string{
		`{"traceEvents": [{"ph": "X"}]}`:               "",
		`[{"ph": "X", "name": "a"}]`:                   "",
		"{\n  \"rocprofiler-sdk-tool\": [":             "json",
		"Type, Container, Start, End, Duration, Depth": "",
		"": "",
	} {
		for name, sniff := range sniffers {
			if got := sniff([]byte(head)); got != (name == want) {
				t.Errorf("%q: %s sniffer says %v", head, name, got)
			}
		}
	}
	if !sniffCSVDir(corpus(t, "rocprofv3-docs")) || sniffCSVDir(corpus(t, "rpd")) {
		t.Error("SniffDir")
	}
}

// TestFormats opens each format through its ingest.Format, options checked.
func TestFormats(t *testing.T) {
	for _, f := range []ingest.Format{JSONFormat, CSVFormat, LegacyCSVFormat, RPDFormat, RocpdFormat} {
		if _, err := f.Check(ingest.Values{"nope": true}); err == nil {
			t.Errorf("%s accepts an unknown option", f.Name)
		}
	}
	opt, err := CSVFormat.Check(ingest.Values{"siblings": false})
	if err != nil {
		t.Fatal(err)
	}
	src, err := CSVFormat.Open(corpus(t, "rocprofv3-csv", "decode_kernel_trace.csv"), opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(src.Files) != 1 || !src.Whole || src.StartOrdered {
		t.Errorf("source %+v", src)
	}
	opt, _ = CSVFormat.Check(nil)
	src, err = CSVFormat.Open(corpus(t, "rocprofv3-csv"), opt)
	if err != nil {
		t.Fatal(err)
	}
	// The directory: both kernel traces and the hip API trace and the
	// counter collection, of two runs (decode_, prefill_).
	if len(src.Files) != 4 {
		t.Errorf("files %v", src.Files)
	}
	tr, notes := load(t, src.Read)
	if got := statesByType(tr); got[kindKernel] != 144+1128 || got[kindHIP] != 920 {
		t.Errorf("states %v", got)
	}
	if len(notes.Messages()) == 0 {
		t.Error("no warning about the several runs")
	}
	for _, f := range []ingest.Format{RPDFormat, RocpdFormat} {
		if _, err := f.Open("/dev/null", nil); err == nil {
			t.Errorf("%s opened a device", f.Name)
		}
	}
}
