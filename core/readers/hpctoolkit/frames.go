package hpctoolkit

import "github.com/macroscope-hpc/macroscope/core/trace"

// frames is the calling-context tree reduced to its procedure frames (and
// loops, when asked): the nodes that become states. Lines, statements and
// instructions are not frames: a sample in one of them is a sample in the
// frame that encloses it. Frames are indexed in the order they are added,
// parents before children.
type frames struct {
	name   []string
	parent []int32 // enclosing frame, trace.None for an outermost one
	depth  []int32 // 0 for an outermost frame
}

func (f *frames) add(name string, parent int32) int32 {
	d := int32(0)
	if parent != trace.None {
		d = f.depth[parent] + 1
	}
	f.name = append(f.name, name)
	f.parent = append(f.parent, parent)
	f.depth = append(f.depth, d)
	return int32(len(f.name) - 1)
}

func (f *frames) len() int { return len(f.name) }
