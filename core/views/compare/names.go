package compare

import (
	"fmt"
	"path/filepath"
	"strings"
)

// compressed are the extensions of compressed files, dropped with the
// format's extension from a run's default name.
var compressed = []string{".gz", ".bz2", ".zst", ".xz"}

// RunNames names runs after their files: each file's name without its
// extensions (base.json.gz: base). Where two files share that name (a
// Score-P archive is always traces.otf2, a rank's Kineto file often
// rank0.json), the folders above it that tell them apart are kept
// ("traces-32/traces", "traces-64/traces"); the same file given twice
// gets "name (2)". An empty path (a run given in memory) is "run i".
func RunNames(paths []string) []string {
	parts := make([][]string, len(paths)) // each path's stem, then its folders upward
	for i, p := range paths {
		if p == "" {
			continue
		}
		base := filepath.Base(p)
		for _, ext := range compressed {
			base = strings.TrimSuffix(base, ext)
		}
		if stem := strings.TrimSuffix(base, filepath.Ext(base)); stem != "" {
			base = stem
		}
		parts[i] = []string{base}
		for dir := filepath.Dir(filepath.Clean(p)); dir != "." && filepath.Dir(dir) != dir; dir = filepath.Dir(dir) {
			parts[i] = append(parts[i], filepath.Base(dir))
		}
	}
	name := func(i, depth int) string {
		p := parts[i]
		depth = min(depth, len(p))
		out := make([]string, depth)
		for k := range depth {
			out[depth-1-k] = p[k]
		}
		return strings.Join(out, "/")
	}
	names := make([]string, len(paths))
	depth := make([]int, len(paths))
	for i := range paths {
		depth[i] = 1
	}
	for {
		// Lengthen the names that collide with another, while a folder
		// above them is left to tell them apart.
		byName := map[string][]int{}
		for i := range paths {
			if parts[i] != nil {
				byName[name(i, depth[i])] = append(byName[name(i, depth[i])], i)
			}
		}
		grew := false
		for _, same := range byName {
			if len(same) < 2 {
				continue
			}
			for _, i := range same {
				if depth[i] < len(parts[i]) && distinct(parts, same) {
					depth[i]++
					grew = true
				}
			}
		}
		if !grew {
			break
		}
	}
	used := map[string]bool{}
	for i := range paths {
		base := fmt.Sprintf("run %d", i)
		if parts[i] != nil {
			base = name(i, depth[i])
		}
		n := base
		for k := 2; used[n]; k++ {
			n = fmt.Sprintf("%s (%d)", base, k)
		}
		used[n] = true
		names[i] = n
	}
	return names
}

// distinct tells whether the paths of runs same differ somewhere in their
// folders (else lengthening their names cannot tell them apart).
func distinct(parts [][]string, same []int) bool {
	first := strings.Join(parts[same[0]], "/")
	for _, i := range same[1:] {
		if strings.Join(parts[i], "/") != first {
			return true
		}
	}
	return false
}
