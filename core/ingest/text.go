package ingest

import (
	"strings"
	"unicode/utf8"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// ValidText keeps the names a reader takes from its input valid UTF-8:
// tables (Arrow strings, Python's str) need it, and a name of invalid
// bytes (a database written by a tool in Latin-1, a damaged string table)
// would give a trace that reads as complete and then fails when a table
// is asked for. Invalid bytes are replaced by U+FFFD, visibly, and
// counted; Note tells the read. The zero value is ready to use.
type ValidText struct {
	Replaced int64 // names whose invalid bytes were replaced
}

// String returns s, its invalid bytes replaced by U+FFFD.
func (v *ValidText) String(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	v.Replaced++
	return strings.ToValidUTF8(s, "\uFFFD")
}

// Note warns the read of the names replaced, if any; file names the input.
func (v *ValidText) Note(opt trace.ReadOptions, file string) {
	if v.Replaced > 0 {
		opt.Warn("%s: %d names or texts are not valid UTF-8: their invalid bytes are shown as U+FFFD (\uFFFD)", file, v.Replaced)
	}
}
