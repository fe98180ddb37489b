package pybind

import (
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Every view built from an incomplete trace (a cut last record, a missing
// part: trace.Notes.Incomplete) carries the reasons, says so in its Info
// ("incomplete", for the Python reprs) and adds a line to its figure's
// title, so that a figure saved and shared later still tells it.

// incompleteNote words the reasons for a figure: "(incomplete: ...)",
// files named by their base names, shortened to a line; "" for a
// complete trace.
func incompleteNote(reasons []string) string {
	if len(reasons) == 0 {
		return ""
	}
	short := make([]string, len(reasons))
	for i, r := range reasons {
		short[i] = withoutDirectories(r)
	}
	s := "incomplete: " + strings.Join(short, "; ")
	const max = 150
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max-3]) + "..."
	}
	return "(" + s + ")"
}

// withoutDirectories shortens the paths in a reason to their file names.
// A reason names its file first ("path: problem", "path is empty: ..."):
// that path loses its directories up to the last separator before the
// first ": ", so that directories with spaces in their names go whole;
// elsewhere each word with a separator is a path of its own.
func withoutDirectories(reason string) string {
	sep := string(filepath.Separator)
	prefix, rest := "", reason
	if lead, after, found := strings.Cut(reason, ": "); found {
		if first, _, _ := strings.Cut(lead, " "); strings.Contains(first, sep) {
			lead = strings.TrimRight(lead, sep) // a directory's own name stays
			prefix, rest = lead[strings.LastIndex(lead, sep)+1:]+": ", after
		}
	}
	words := strings.Split(rest, " ")
	for j, w := range words {
		if strings.Contains(w, sep) {
			path := strings.TrimRight(w, ":,;)")
			words[j] = filepath.Base(path) + w[len(path):]
		}
	}
	return prefix + strings.Join(words, " ")
}

// titled returns title with the incomplete note on a line of its own
// under it (alone when there is no title).
func titled(title string, reasons []string) string {
	note := incompleteNote(reasons)
	switch {
	case note == "":
		return title
	case title == "":
		return note
	}
	return title + "\n" + note
}

// incompleteOf returns the reasons a trace in memory is incomplete.
func incompleteOf(t *Trace) []string {
	if t == nil {
		return nil
	}
	return t.notes.IncompleteReasons()
}
