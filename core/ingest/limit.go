package ingest

import "math"

// MaxDecompressedOption is the option of the readers of text formats that
// bounds what a compressed file may expand to (see Decompress).
var MaxDecompressedOption = Option{
	Name: "max_decompressed", Kind: Int, Default: int(min(DefaultMaxDecompressed, math.MaxInt)), // 2 GiB on 32-bit machines
	Doc: "the most bytes a compressed file (gzip, bzip2, zstd) may expand to before the read stops, against decompression bombs; 0: no limit",
}

// MaxDecompressed returns the limit the option max_decompressed of v sets,
// as readers take it: 0 when it is absent (their default,
// DefaultMaxDecompressed), -1 when the user asked for no limit.
func MaxDecompressed(v Values) int64 {
	if !v.Has(MaxDecompressedOption.Name) {
		return 0
	}
	if n := v.Int(MaxDecompressedOption.Name); n > 0 {
		return int64(n)
	}
	return -1
}
