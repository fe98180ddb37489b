package otf2

import (
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Format is the OTF2 format, for the door (package ingest).
var Format = ingest.Format{
	Name:       "otf2",
	Summary:    "OTF2 archive (Score-P, APEX): the .otf2 anchor file or its directory",
	Extensions: []string{".otf2"},
	SniffDir:   func(dir string) bool { _, err := findAnchor(dir); return err == nil },
	Options: []ingest.Option{
		{Name: "location_groups", Kind: ingest.Strings,
			Doc: "read the locations of these location groups (IDs) only: a part of the archive, for a distributed read"},
	},
	Open: func(path string, v ingest.Values) (*ingest.Source, error) {
		groups, err := parseGroups(v.Strings("location_groups"))
		if err != nil {
			return nil, err
		}
		return &ingest.Source{Read: func(sink trace.Sink, ro trace.ReadOptions) error { return ReadGroups(path, groups, sink, ro) },
			// The clock properties' span when they give one (nothing but
			// the definitions read), else the timestamps walked (exact).
			Probe: func() (trace.Time, trace.Time, bool) {
				if start, end, ok := Window(path, groups); ok {
					return start, end, true
				}
				return Probe(path, groups)
			},
			Files: []string{path}}, nil
	},
}
