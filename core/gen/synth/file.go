package synth

import (
	"os"
	"path/filepath"
	"strings"
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

// WriteFile writes the Pajé trace c describes to path. A file left
// incomplete by an error is removed. (The Parquet tables of the same
// intervals are written by package arrowio: the core knows no Arrow.)
func WriteFile(path string, c Config) (Stats, error) {
	c.Format = FormatPaje
	if err := c.Validate(); err != nil {
		return Stats{}, err
	}
	if err := c.CheckDisk(path, FormatPaje); err != nil {
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
