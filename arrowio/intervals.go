package arrowio

import (
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/intervals"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// IntervalColumns name the columns of a table of intervals (see package
// intervals). Resource, State and Start are required, and one of End and
// Duration.
type IntervalColumns struct {
	Resource, State, Start, End, Duration string
	// Type, if set, names a column holding the state type of each row.
	Type string
	// TimeUnit is the unit of times and durations held as plain numbers:
	// "s", "ms", "us" or "ns". If empty, floating-point numbers are seconds
	// and integers nanoseconds. Timestamp and duration columns carry their
	// own unit; timestamps count from the Unix epoch.
	TimeUnit string
	// Role, if set, names a column holding the role of each row's value,
	// by name (trace.Role's String; null or "" for none): the roles a
	// reader gave, which a Parquet dataset of the trace keeps.
	Role string
	// Category, if set, names a column holding the category of each
	// row's value (trace.Value's; null or "" for none).
	Category string
}

// ReadIntervals adds the rows of every record batch of rdr to b, rows
// numbered from 0 across batches. Errors are *errs.ArgumentError naming the
// option of the faulty column and the row.
func ReadIntervals(rdr array.RecordReader, cols IntervalColumns, b *intervals.Builder) error {
	if (cols.End == "") == (cols.Duration == "") {
		return errs.Argument("end", "give either an end column or a duration column")
	}
	for _, c := range []struct{ param, name string }{{"resource", cols.Resource}, {"state", cols.State}, {"start", cols.Start}} {
		if c.name == "" {
			return errs.Argument(c.param, "a column name is required")
		}
	}
	if _, ok := unitNanos[cols.TimeUnit]; !ok && cols.TimeUnit != "" {
		return errs.Argument("time_unit", "unknown unit %q (one of s, ms, us, ns)", cols.TimeUnit)
	}
	schema := rdr.Schema()
	find := func(param, name string) (int, error) {
		if name == "" {
			return -1, nil
		}
		idx := schema.FieldIndices(name)
		if len(idx) == 0 {
			names := make([]string, schema.NumFields())
			for i, f := range schema.Fields() {
				names[i] = f.Name
			}
			return 0, errs.Argument(param, "no column %q in the table (columns: %v)", name, names)
		}
		return idx[0], nil
	}
	var idx [8]int
	for k, c := range []struct{ param, name string }{
		{"resource", cols.Resource}, {"state", cols.State}, {"start", cols.Start},
		{"end", cols.End}, {"duration", cols.Duration}, {"type", cols.Type}, {"role", cols.Role}, {"category", cols.Category},
	} {
		i, err := find(c.param, c.name)
		if err != nil {
			return err
		}
		idx[k] = i
	}
	base := 0
	for rdr.Next() {
		rec := rdr.RecordBatch()
		if err := readBatch(rec, idx, cols, base, b); err != nil {
			return err
		}
		base += int(rec.NumRows())
	}
	if err := rdr.Err(); err != nil {
		return errs.Argument("table", "reading the table: %v", err)
	}
	return nil
}

func readBatch(rec arrow.RecordBatch, idx [8]int, cols IntervalColumns, base int, b *intervals.Builder) error {
	resource, err := stringsOf(rec.Column(idx[0]), "resource", cols.Resource)
	if err != nil {
		return err
	}
	state, err := stringsOf(rec.Column(idx[1]), "state", cols.State)
	if err != nil {
		return err
	}
	start, err := timesOf(rec.Column(idx[2]), "start", cols.Start, cols.TimeUnit)
	if err != nil {
		return err
	}
	var end, dur timeColumn
	if idx[3] >= 0 {
		end, err = timesOf(rec.Column(idx[3]), "end", cols.End, cols.TimeUnit)
	} else {
		dur, err = timesOf(rec.Column(idx[4]), "duration", cols.Duration, cols.TimeUnit)
	}
	if err != nil {
		return err
	}
	typ := func(int) (string, bool) { return "", true }
	if idx[5] >= 0 {
		if typ, err = stringsOf(rec.Column(idx[5]), "type", cols.Type); err != nil {
			return err
		}
	}
	role := func(int) (string, bool) { return "", false }
	if idx[6] >= 0 {
		if role, err = stringsOf(rec.Column(idx[6]), "role", cols.Role); err != nil {
			return err
		}
	}
	category := func(int) (string, bool) { return "", false }
	if idx[7] >= 0 {
		if category, err = stringsOf(rec.Column(idx[7]), "category", cols.Category); err != nil {
			return err
		}
	}
	b.Grow(int(rec.NumRows()))
	for i := range int(rec.NumRows()) {
		row := base + i
		r, ok := resource(i)
		if !ok {
			return missing("resource", cols.Resource, row)
		}
		s, ok := state(i)
		if !ok {
			return missing("state", cols.State, row)
		}
		ty, ok := typ(i)
		if !ok {
			return missing("type", cols.Type, row)
		}
		t0, err := start.at(i, row)
		if err != nil {
			return err
		}
		var t1 trace.Time
		if end.at != nil {
			if t1, err = end.at(i, row); err != nil {
				return err
			}
		} else {
			d, err := dur.at(i, row)
			if err != nil {
				return err
			}
			if d < 0 {
				return errs.Argument("duration", "row %d: column %q holds a negative duration, %v s", row, cols.Duration, d)
			}
			if t1 = t0 + d; t1 < t0 {
				return errs.Argument("duration", "row %d: start plus duration is out of range", row)
			}
		}
		var rl trace.Role
		if name, ok := role(i); ok {
			if rl, ok = trace.RoleNamed(name); !ok {
				return errs.Argument("role", "row %d: column %q holds %s, which is no role's name", row, cols.Role, errs.Quote(name))
			}
		}
		cat, _ := category(i)
		if err := b.AddValue(r, ty, s, cat, rl, t0, t1); err != nil {
			return err
		}
	}
	return nil
}

func missing(param, column string, row int) error {
	return errs.Argument(param, "row %d: column %q has no value (null)", row, column)
}

// stringsOf reads a string column, plain or dictionary-encoded; the
// strings alias the column's buffers.
func stringsOf(col arrow.Array, param, name string) (func(i int) (string, bool), error) {
	valid := func(i int) bool { return col.IsValid(i) }
	switch a := col.(type) {
	case *array.String:
		return func(i int) (string, bool) { return a.Value(i), valid(i) }, nil
	case *array.LargeString:
		return func(i int) (string, bool) { return a.Value(i), valid(i) }, nil
	case *array.StringView:
		return func(i int) (string, bool) { return a.Value(i), valid(i) }, nil
	case *array.Dictionary:
		dict, err := stringsOf(a.Dictionary(), param, name)
		if err != nil {
			return nil, err
		}
		return func(i int) (string, bool) {
			if !valid(i) {
				return "", false
			}
			return dict(a.GetValueIndex(i))
		}, nil
	}
	return nil, errs.Argument(param, "column %q holds %s; it must hold strings", name, col.DataType())
}

// timeColumn converts the values of a column to trace time.
type timeColumn struct {
	at func(i, row int) (trace.Time, error)
}

// unitNanos gives the nanoseconds in a unit of time.
var unitNanos = map[string]int64{"s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1}

var arrowUnitNanos = map[arrow.TimeUnit]int64{arrow.Second: 1e9, arrow.Millisecond: 1e6, arrow.Microsecond: 1e3, arrow.Nanosecond: 1}

var errRange = errors.New("out of range (more than 292 years in nanoseconds)")

// timesOf reads a column of times: numbers in unit (floats in seconds and
// integers in nanoseconds if unit is empty), timestamps or durations.
func timesOf(col arrow.Array, param, name, unit string) (timeColumn, error) {
	fail := func(row int, format string, args ...any) error {
		return errs.Argument(param, "row %d: column %q %s", row, name, fmt.Sprintf(format, args...))
	}
	ints := func(value func(i int) int64, per int64) timeColumn {
		return timeColumn{func(i, row int) (trace.Time, error) {
			if col.IsNull(i) {
				return 0, fail(row, "has no value (null)")
			}
			v := value(i)
			if v > math.MaxInt64/per || v < math.MinInt64/per {
				return 0, fail(row, "holds %d, %v", v, errRange)
			}
			return trace.Time(v * per), nil
		}}
	}
	floats := func(value func(i int) float64, per int64) timeColumn {
		return timeColumn{func(i, row int) (trace.Time, error) {
			if col.IsNull(i) {
				return 0, fail(row, "has no value (null)")
			}
			v := value(i)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fail(row, "holds %v", v)
			}
			ns := math.Round(v * float64(per))
			if ns >= math.MaxInt64 || ns < math.MinInt64 {
				return 0, fail(row, "holds %v, %v", v, errRange)
			}
			return trace.Time(ns), nil
		}}
	}
	intUnit, floatUnit := int64(1), int64(1e9)
	if unit != "" {
		intUnit, floatUnit = unitNanos[unit], unitNanos[unit]
	}
	switch a := col.(type) {
	case *array.Float64:
		return floats(a.Value, floatUnit), nil
	case *array.Float32:
		return floats(func(i int) float64 { return float64(a.Value(i)) }, floatUnit), nil
	case *array.Int64:
		return ints(a.Value, intUnit), nil
	case *array.Int32:
		return ints(func(i int) int64 { return int64(a.Value(i)) }, intUnit), nil
	case *array.Int16:
		return ints(func(i int) int64 { return int64(a.Value(i)) }, intUnit), nil
	case *array.Int8:
		return ints(func(i int) int64 { return int64(a.Value(i)) }, intUnit), nil
	case *array.Uint32:
		return ints(func(i int) int64 { return int64(a.Value(i)) }, intUnit), nil
	case *array.Uint16:
		return ints(func(i int) int64 { return int64(a.Value(i)) }, intUnit), nil
	case *array.Uint8:
		return ints(func(i int) int64 { return int64(a.Value(i)) }, intUnit), nil
	case *array.Uint64:
		return timeColumn{func(i, row int) (trace.Time, error) {
			if v := a.Value(i); a.IsValid(i) && v > math.MaxInt64 {
				return 0, fail(row, "holds %d, %v", v, errRange)
			}
			return ints(func(i int) int64 { return int64(a.Value(i)) }, intUnit).at(i, row)
		}}, nil
	case *array.Timestamp:
		per := arrowUnitNanos[a.DataType().(*arrow.TimestampType).Unit]
		return ints(func(i int) int64 { return int64(a.Value(i)) }, per), nil
	case *array.Duration:
		per := arrowUnitNanos[a.DataType().(*arrow.DurationType).Unit]
		return ints(func(i int) int64 { return int64(a.Value(i)) }, per), nil
	}
	return timeColumn{}, errs.Argument(param, "column %q holds %s; times must be numbers, timestamps or durations", name, col.DataType())
}
