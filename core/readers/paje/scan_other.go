//go:build !amd64 || purego

package paje

// hasVectorScan is false: without a vector kernel, plainFields splits the
// lines eight bytes at a time, faster than classifying them first.
var hasVectorScan = false

func classifyBlocks(data []byte, spaces, odds []uint64) { classifyGeneric(data, spaces, odds) }
