package profile

import (
	"bytes"
	"encoding/gob"
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/partition"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// ComputePart profiles a part of a trace (package partition): the parts
// of a plan by location group, by trace line or by file hold each state
// with the states nested in it, so that Merge of their results is the
// profile of the whole trace, exactly (sums of integer nanoseconds).
// Byte ranges of a file whose states nest (pj_dump's) would cut a state
// from its children: read such a file as one part.
func ComputePart(p partition.Part, opt Options, ro trace.ReadOptions) (*Result, error) {
	a := New(opt)
	if err := partition.Read(p, a, ro); err != nil {
		return nil, err
	}
	return a.Result()
}

// Merge adds up the profiles of two consecutive parts of a trace, a's
// before b's: sums of the same name and process (by path) add up, and
// the processes keep their order (a's, then b's new ones: the
// containers' order when the parts are in order); the extent is the
// union.
func Merge(a, b *Result) (*Result, error) {
	if a.By != b.By {
		return nil, fmt.Errorf("profile: merging a profile by %s with one by %s", a.By, b.By)
	}
	out := &Result{By: a.By, Start: min(a.Start, b.Start), End: max(a.End, b.End)}
	procIndex, nameIndex := map[string]int32{}, map[Name]int{}
	for _, r := range []*Result{a, b} {
		for i, n := range r.Names {
			k, ok := nameIndex[n]
			if !ok {
				k = len(out.Names)
				nameIndex[n] = k
				out.Names = append(out.Names, n)
				out.Sums = append(out.Sums, map[int32]Sum{})
			}
			for p, s := range r.Sums[i] {
				path := r.Processes[p]
				q, ok := procIndex[path]
				if !ok {
					q = int32(len(out.Processes))
					procIndex[path] = q
					out.Processes = append(out.Processes, path)
				}
				t := out.Sums[k][q]
				t.Count += s.Count
				t.Inclusive += s.Inclusive
				t.Exclusive += s.Exclusive
				out.Sums[k][q] = t
			}
		}
	}
	return out, nil
}

// encoded is Result without its methods, which gob encodes field by
// field (Result's MarshalBinary would call itself).
type encoded Result

// MarshalBinary encodes the result, to travel between processes.
func (r *Result) MarshalBinary() ([]byte, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode((*encoded)(r)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// UnmarshalResult decodes a result encoded by MarshalBinary.
func UnmarshalResult(data []byte) (*Result, error) {
	r := &Result{}
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode((*encoded)(r)); err != nil {
		return nil, fmt.Errorf("profile: decoding a partial profile: %w", err)
	}
	return r, nil
}
