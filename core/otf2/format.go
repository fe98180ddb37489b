package otf2

import (
	"github.com/macroscope-hpc/macroscope/core/ingest"
)

// Format is the OTF2 format, for the door (package ingest).
var Format = ingest.Format{
	Name:       "otf2",
	Summary:    "OTF2 archive (Score-P, APEX): the .otf2 anchor file or its directory",
	Extensions: []string{".otf2"},
	SniffDir:   func(dir string) bool { _, err := findAnchor(dir); return err == nil },
	Open:       ingest.Simple(Read),
}
