package pjcsv

import (
	"bytes"
	"os"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Format is pj_dump's CSV output (and StarVZ's directories of it), for the
// door (package ingest).
var Format = ingest.Format{
	Name:       "pjdump",
	Summary:    "pj_dump CSV output, or a StarVZ directory of split CSV files",
	Extensions: []string{".csv"},
	Sniff:      Looks,
	SniffDir:   func(dir string) bool { files, err := Files(dir); return err == nil && len(files) > 0 },
	Options: []ingest.Option{
		{Name: "skip_inverted", Kind: ingest.Bool, Default: false,
			Doc: "skip the rows that end before they start (StarVZ's dumps hold a few), counting them, instead of failing"},
		ingest.MaxDecompressedOption,
		{Name: "part_start", Kind: ingest.Int, Default: 0,
			Doc: "read only the records of the lines from this byte to part_end (a plain file's part, for a distributed read: see Ranges)"},
		{Name: "part_end", Kind: ingest.Int, Default: 0, Doc: "the end of the byte range part_start starts (0: the whole file)"},
	},
	Open: func(path string, v ingest.Values) (*ingest.Source, error) {
		skip := v.Bool("skip_inverted")
		limit := ingest.MaxDecompressed(v)
		from, to := int64(v.Int("part_start")), int64(v.Int("part_end"))
		files := []string{path}
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			files, _ = Files(path)
		}
		return &ingest.Source{
			Read: func(sink trace.Sink, ro trace.ReadOptions) error {
				opt := Options{ReadOptions: ro, MaxDecompressed: limit}
				if skip {
					var named int
					opt.OnInverted = func(file string, line int) {
						// Name the first few, count them all.
						if named < 5 {
							ro.Warn("skipped a row ending before it starts: %s:%d", file, line)
						}
						named++
						ro.Skip("rows ending before they start", 1)
					}
				}
				if to > 0 {
					return readRange(path, from, to, sink, opt)
				}
				return ReadWith(path, sink, opt)
			},
			StartOrdered: true,
			Files:        files,
		}, nil
	},
}

// Looks reports whether the first bytes of a file look like pj_dump's
// output: a row of one of its kinds.
func Looks(h []byte) bool {
	for _, kind := range []string{"Container, ", "State, ", "Variable, ", "Link, ", "Event, "} {
		if bytes.HasPrefix(h, []byte(kind)) {
			return true
		}
	}
	return false
}
