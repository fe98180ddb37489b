package kaleido

import (
	"slices"
	"strings"
)

// NaturalCompare orders strings with their runs of digits compared as
// numbers, so that "PE 2" comes before "PE 10" and "rank-9" before
// "rank-10". Equal numbers written differently ("7", "007") compare by
// their text.
func NaturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := isDigit(a[0]), isDigit(b[0])
		if da && db {
			na, ra := digitRun(a)
			nb, rb := digitRun(b)
			x, y := strings.TrimLeft(na, "0"), strings.TrimLeft(nb, "0")
			if len(x) != len(y) {
				return cmpInt(len(x), len(y))
			}
			if c := strings.Compare(x, y); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = ra, rb
			continue
		}
		if a[0] != b[0] {
			return cmpInt(int(a[0]), int(b[0]))
		}
		a, b = a[1:], b[1:]
	}
	return cmpInt(len(a), len(b))
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func digitRun(s string) (run, rest string) {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return s[:i], s[i:]
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Categorize numbers the distinct values of a column in natural order:
// labels holds them sorted, codes[i] the index of values[i] in labels, or
// None where valid[i] is false (valid nil: all valid).
func Categorize(values []string, valid []bool) (labels []string, codes []int32) {
	index := map[string]int32{}
	codes = make([]int32, len(values))
	for i, v := range values {
		if valid != nil && !valid[i] {
			codes[i] = None
			continue
		}
		x, ok := index[v]
		if !ok {
			x = int32(len(labels))
			index[v] = x
			labels = append(labels, v)
		}
		codes[i] = x
	}
	order := make([]int32, len(labels))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return NaturalCompare(labels[x], labels[y]) })
	rank := make([]int32, len(labels))
	sorted := make([]string, len(labels))
	for r, x := range order {
		rank[x] = int32(r)
		sorted[r] = labels[x]
	}
	for i, c := range codes {
		if c != None {
			codes[i] = rank[c]
		}
	}
	return sorted, codes
}
