package synth

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Formats the generator writes.
const (
	FormatPaje    = "paje"
	FormatParquet = "parquet"
)

// FormatOf returns the format a file name implies: Parquet for .parquet,
// Pajé otherwise.
func FormatOf(path string) string {
	if strings.EqualFold(filepath.Ext(path), ".parquet") {
		return FormatParquet
	}
	return FormatPaje
}

// WriteFile writes the trace c describes to path in format ("paje",
// "parquet", or "" to choose by the file's extension). A file left
// incomplete by an error is removed.
func WriteFile(path, format string, c Config) (Stats, error) {
	if format == "" {
		format = FormatOf(path)
	}
	switch strings.ToLower(format) {
	case FormatParquet:
		return WriteParquet(path, c)
	case FormatPaje, "pajé", "trace":
	default:
		return Stats{}, errs.Argument("format", "unknown format %q (use paje or parquet)", format)
	}
	if err := c.Validate(); err != nil {
		return Stats{}, err
	}
	f, err := os.Create(path)
	if err != nil {
		return Stats{}, err
	}
	st, err := WritePaje(f, c)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return Stats{}, err
	}
	return st, nil
}
