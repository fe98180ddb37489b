package xplane

import (
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/macroscope-hpc/macroscope/core/readers/pbwalk"
)

// field is the protobuf walker's field, under the short name the
// decoders use.
type field = pbwalk.Field

// want checks that field f, of message msg, named name, has wire type
// typ: a known field of another type is a corrupt file (the protobuf
// library refuses it too).
func want(f *field, msg, name string, typ protowire.Type) error {
	if f.Typ != typ {
		return pbwalk.Corruptf(f.At(), "%s.%s (field %d) has wire type %s, not %s", msg, name, f.Num, wireName(f.Typ), wireName(typ))
	}
	return nil
}

func wireName(t protowire.Type) string {
	switch t {
	case protowire.VarintType:
		return "varint"
	case protowire.Fixed64Type:
		return "fixed64"
	case protowire.Fixed32Type:
		return "fixed32"
	case protowire.BytesType:
		return "length-delimited"
	case protowire.StartGroupType, protowire.EndGroupType:
		return "group"
	}
	return fmt.Sprintf("%d", t)
}

// psToNs returns base (nanoseconds) plus ps picoseconds, rounded to the
// nearest nanosecond (halves up); false when the sum leaves int64.
func psToNs(base, ps int64) (int64, bool) {
	q, r := ps/1000, ps%1000
	if r < 0 { // floor division
		q, r = q-1, r+1000
	}
	if r >= 500 {
		q++
	}
	if (q > 0 && base > math.MaxInt64-q) || (q < 0 && base < math.MinInt64-q) {
		return 0, false
	}
	return base + q, true
}
