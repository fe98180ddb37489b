package rocprof

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// overBudget checks that err, the read's under meter, is the budget's
// refusal placed in file, and that the front end's message says want
// (budget.Named).
func overBudget(t *testing.T, meter *budget.Meter, err error, file, want string) *errs.FormatError {
	t.Helper()
	if meter.Err() == nil {
		t.Fatalf("the read stayed within its budget: %v", err)
	}
	var fe *errs.FormatError
	if !errors.As(err, &fe) || fe.File != file || !errors.Is(err, meter.Err()) {
		t.Fatalf("%v, want the budget's error placed in %s", err, file)
	}
	if named := budget.Named(meter.Err(), err, file).Error(); !strings.Contains(named, want) {
		t.Errorf("%s\nwant %q", named, want)
	}
	if meter.Held() != 0 {
		t.Errorf("%d bytes still held", meter.Held())
	}
	return fe
}

// A CSV file whose rows outgrow the budget stops at the line the model
// was refused at, and says it; the model is weighed every weighEvery
// entries, one per row here.
func TestCSVBudgetNamesLine(t *testing.T) {
	const rows = 200_000
	csv := gzipFile(t, "1_kernel_trace.csv.gz", func(w io.Writer) {
		io.WriteString(w, `"Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp"`+"\n")
		for i := range rows {
			fmt.Fprintf(w, "\"KERNEL_DISPATCH\",1,1,1,\"k\",%d,%d,%d\n", i+1, 10*i, 10*i+5)
		}
	})
	meter := budget.NewMeter(1<<20, nil)
	err := ReadCSV([]string{csv}, false, trace.New(), trace.ReadOptions{Hold: meter.Hold})
	fe := overBudget(t, meter, err, csv, "reading "+csv+", line ")
	if fe.Line < 2 || fe.Line > rows+1 {
		t.Errorf("placed at line %d, want one of the rows' (2 to %d)", fe.Line, rows+1)
	}
}

// A rocpd database whose rows outgrow the budget stops at the table and
// row the model was refused at, and says it.
func TestRocpdBudgetNamesTableAndRow(t *testing.T) {
	region := "rocpd_region" + run1
	path := rocpdCopy(t, "results.db",
		`INSERT INTO `+region+` (guid, nid, pid, tid, start, "end", name_id, event_id, extdata)
			WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 200000)
			SELECT guid, nid, pid, tid, start+i, "end"+i, name_id, event_id, extdata FROM `+region+`, c WHERE `+region+`.id = 1`)
	meter := budget.NewMeter(1<<20, nil)
	err := readRocpd(path, trace.New(), trace.ReadOptions{Hold: meter.Hold})
	fe := overBudget(t, meter, err, path, "reading "+path+", table "+region+", row ")
	var row int
	if _, serr := fmt.Sscanf(fe.Where, "table "+region+", row %d", &row); serr != nil || row < 1 || row > 200_048 {
		t.Errorf("placed at %q, want a row of %s", fe.Where, region)
	}
}

// A rocprofv3 JSON file whose records outgrow the budget stops at the
// byte of the record the model was refused at (its metadata, agents,
// kernel symbols and strings come first here, so records join the model
// as they are read), and says it.
func TestJSONBudgetNamesByte(t *testing.T) {
	const records = 200_000
	js := gzipFile(t, "1_results.json.gz", func(w io.Writer) {
		io.WriteString(w, `{"rocprofiler-sdk-tool": [{"metadata": {"pid": 42, "node": {"hostname": "node1"}},`+
			`"agents": [], "kernel_symbols": [],`+
			`"strings": {"buffer_records": [{"kind": "NONE", "operations": []}, {"kind": "HIP_RUNTIME_API", "operations": ["hipMalloc", "hipLaunchKernel"]}]},`+
			`"buffer_records": {"hip_api": [`)
		for i := range records {
			if i > 0 {
				io.WriteString(w, ",")
			}
			fmt.Fprintf(w, `{"kind": 1, "operation": 1, "thread_id": 43, "correlation_id": {"internal": %d}, "start_timestamp": %d, "end_timestamp": %d}`, i+1, 10*i, 10*i+5)
		}
		io.WriteString(w, `]}}]}`)
	})
	meter := budget.NewMeter(1<<20, nil)
	err := readJSONFile(js, trace.New(), trace.ReadOptions{Hold: meter.Hold})
	fe := overBudget(t, meter, err, js, "reading "+js+", byte ")
	if !fe.HasOffset() || fe.Line != 0 {
		t.Errorf("placed at line %d, byte %d: want a byte", fe.Line, fe.Offset)
	}
}

// rocprof v1's results.db whose kernel rows outgrow the budget stops at
// the row of KERN the model was refused at, says it, and gives back what
// the model held (before, the refusal waited for the end of the table and
// the model's weight stayed held).
func TestLegacyDBBudgetNamesTableAndRow(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "rocprof-v1-db", "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "results.db")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO KERN ("KernelName", "gpu-id", "queue-id", BeginNs, EndNs)
		WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 200000)
		SELECT KernelName, "gpu-id", "queue-id", BeginNs+i, EndNs+i FROM KERN, c WHERE KERN.rowid = 1`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	meter := budget.NewMeter(1<<20, nil)
	err = readRocpd(path, trace.New(), trace.ReadOptions{Hold: meter.Hold})
	fe := overBudget(t, meter, err, path, "reading "+path+", table KERN, row ")
	var row int
	if _, serr := fmt.Sscanf(fe.Where, "table KERN, row %d", &row); serr != nil || row < 1 || row >= 200_000 {
		t.Errorf("placed at %q, want a row of KERN before its last", fe.Where)
	}
}
