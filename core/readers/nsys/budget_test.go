package nsys

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The budget's refusal of the rows gathered is placed at its table and
// row, for the front end to say (budget.Named): the reader weighs what it
// holds every 4096 rows, so the row is a multiple of 4096 of the first
// table read, the runtime API's.
func TestBudgetNamesTableAndRow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "many.sqlite")
	writeDB(t, path, tinySQL+fmt.Sprintf(`;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME
	WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 100000)
	SELECT 10000+i, 10001+i, 0, %d, 1000+i, 1, 0, NULL FROM c;
`, t1))
	meter := budget.NewMeter(1<<20, nil)
	err := Read(path, trace.New(), trace.ReadOptions{Hold: meter.Hold})
	if meter.Err() == nil {
		t.Fatalf("the read stayed within 1 MiB: %v", err)
	}
	var fe *errs.FormatError
	if !errors.As(err, &fe) || fe.File != path || !errors.Is(err, meter.Err()) {
		t.Fatalf("%v, want the budget's error placed in %s", err, path)
	}
	var row int
	if _, serr := fmt.Sscanf(fe.Where, "table CUPTI_ACTIVITY_KIND_RUNTIME, row %d", &row); serr != nil || row%4096 != 0 || row == 0 {
		t.Fatalf("placed at %q, want a row of the runtime API's table, a multiple of 4096", fe.Where)
	}
	named := budget.Named(meter.Err(), err, path).Error()
	if want := fmt.Sprintf("reading %s, table CUPTI_ACTIVITY_KIND_RUNTIME, row %d: the read holds", path, row); !strings.Contains(named, want) {
		t.Errorf("%s\nwant %q", named, want)
	}
	if meter.Held() != 0 {
		t.Errorf("%d bytes still held", meter.Held())
	}
}
