//go:build !amd64 || purego

package chrome

// hasVectorIndex is false: without a vector kernel, the event reader
// scans eight bytes at a time, faster than indexing them first.
var hasVectorIndex = false

func indexBlocks(data []byte, blocks []block, c *carry) { indexGeneric(data, blocks, c) }
