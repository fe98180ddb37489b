package formats

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var shared = filepath.Join("..", "..", "..", "shared", "traces")

func TestDetectCorpus(t *testing.T) {
	cases := map[string]string{
		"pajeng/traces/simu-mardi.trace":                         "paje",
		"pipit/tests/data/ping-pong-otf2":                        "otf2",
		"pipit/tests/data/ping-pong-otf2/traces.otf2":            "otf2",
		"hta/tests/data/trace_diff/control/control.json.gz":      "chrome",
		"paraver/test/cutter/qsort_beo3.prv":                     "paraver",
		"paraver/test/cutter/qsort_beo3.prv.gz":                  "paraver",
		"pajeng/oracles/032_pj_dump_simu_mardi_trace.out":        "pjdump",
		"starvz/inst/extdata/lu_trace":                           "pjdump",
		"smpi-nas/is_B_64.trace":                                 "paje",
		"hatchet/perfflow_hist/laghos_1iter.pfw":                 "chrome",
		"nsys/h100_2gpu_1s.sqlite":                               "nsys",
		"pipit/hist/data/saxpy-mpi-cuda_nsys_perlmutter0.sqlite": "nsys",
		"hpctoolkit-db/vectorAdd":                                "hpctoolkit",
		"hpctoolkit-db/vectorAdd/meta.db":                        "hpctoolkit",
		"hpctoolkit-db/xml/vectorAdd":                            "hpctoolkit",
		"pipit/tests/data/ping-pong-hpctoolkit":                  "hpctoolkit",
		"perfetto/perfetto/nested_tracks.perfetto-trace":         "perfetto",
		"perfetto/perfetto/track_event_typed_args.pb":            "perfetto",
	}
	for rel, want := range cases {
		path := filepath.Join(shared, rel)
		if _, err := os.Stat(path); err != nil {
			t.Logf("skipping %s: %v", rel, err)
			continue
		}
		f, err := Detect(path)
		if err != nil || f.Name != want {
			t.Errorf("Detect(%s) = %q, %v; want %q", rel, f.Name, err, want)
		}
	}
}

func TestDetectByContent(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"paje":    "# comment\n%EventDef PajeDefineContainerType 0\n",
		"chrome":  "  [{\"ph\": \"X\"}]",
		"paraver": "#Paraver (01/01/04 at 00:00):100_ns:0:1:1(1:1)\n",
		"pjdump":  "Container, 0, 0, 0, 1, 1, 0\n",
	} {
		path := filepath.Join(dir, name+".data")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if f, err := Detect(path); err != nil || f.Name != name {
			t.Errorf("content %q detected as %q, %v", body, f.Name, err)
		}
	}
	unknown := filepath.Join(dir, "x.data")
	os.WriteFile(unknown, []byte("hello"), 0o644)
	if _, err := Detect(unknown); err == nil {
		t.Error("unknown content was given a format")
	}
	if _, err := ByName("nope"); err == nil {
		t.Error("unknown format name accepted")
	}
}

// TestDetectDirSaysTheWayOut checks that a directory no format reads
// says what is read instead: a trace file, or several of one format.
func TestDetectDirSaysTheWayOut(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "rank-0.json"), []byte(`{"traceEvents":[]}`), 0o644)
	_, err := Detect(dir)
	if err == nil || !strings.Contains(err.Error(), "two or more trace files of one format") ||
		!strings.Contains(err.Error(), "give a trace file") {
		t.Errorf("error %v", err)
	}
}

// A rocpd database (rocprofv3, ROCm 7) is told by its tables whatever its
// name; RPD files and Nsight Systems exports, SQLite too, are not taken
// for one.
func TestDetectRocpd(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "readers", "rocprof", "testdata", "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"results.db", "4101_results.db", "run.sqlite", "profile.rpd", "noext"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if f, err := Detect(path); err != nil || f.Name != "rocpd" {
			t.Errorf("%s detected as %q, %v", name, f.Name, err)
		}
	}
	for rel, want := range map[string]string{
		filepath.Join("..", "readers", "nsys", "testdata", "tiny.sqlite"): "nsys",
		filepath.Join(shared, "rocprof", "rpd", "matmul_result.rpd"):      "rpd",
	} {
		if _, err := os.Stat(rel); err != nil {
			t.Logf("skipping %s: %v", rel, err)
			continue
		}
		if f, err := Detect(rel); err != nil || f.Name != want {
			t.Errorf("%s detected as %q, %v; want %q", rel, f.Name, err, want)
		}
	}
}
