package ingest

import (
	"bytes"
	"fmt"
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

// WideText names the encoding of text that starts with the byte-order
// mark of UTF-16 or UTF-32 ("UTF-16LE", ...), as Windows tools write
// redirected output and some editors save; "" for anything else. Readers
// take UTF-8 (ASCII) text: such a file is refused with its name and the
// way to convert it, instead of an error about its first byte.
func WideText(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte{0xff, 0xfe, 0, 0}):
		return "UTF-32LE"
	case bytes.HasPrefix(head, []byte{0, 0, 0xfe, 0xff}):
		return "UTF-32BE"
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}):
		return "UTF-16LE"
	case bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		return "UTF-16BE"
	}
	return ""
}

// WideTextError is the reason WideText's encoding is refused.
func WideTextError(enc string) string {
	// iconv's UTF-16 and UTF-32 read the mark and drop it: with the
	// explicit endianness it would stay, as a U+FEFF.
	return fmt.Sprintf("is %s text (it starts with its byte-order mark): traces are read as UTF-8; convert it first (iconv -f %s -t UTF-8)", enc, enc[:len("UTF-16")])
}

// Archive names the archive format whose first bytes head are (a zip or
// tar file, such as the archives profiling wrappers bundle a run's
// reports in: nsys-jax's), or "" for any other file.
func Archive(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return "zip"
	case len(head) >= 262 && string(head[257:262]) == "ustar":
		return "tar"
	}
	return ""
}

// UnreadCompression names the compression of head that Decompress does
// not undo (xz, lzip, lz4, a 7z archive's), or "" for any other
// file: its reader would call its compressed bytes a damaged trace.
func UnreadCompression(head []byte) (name, tool string) {
	switch {
	case bytes.HasPrefix(head, []byte("\xfd7zXZ\x00")):
		return "xz", "xz -d"
	case bytes.HasPrefix(head, []byte("LZIP")):
		return "lzip", "lzip -d"
	case bytes.HasPrefix(head, []byte("\x04\x22\x4d\x18")):
		return "lz4", "lz4 -d"
	case bytes.HasPrefix(head, []byte("7z\xbc\xaf\x27\x1c")):
		return "7z", "7z x"
	}
	return "", ""
}

// UnreadCompressionError is the error text for a file compressed so.
func UnreadCompressionError(name, tool string) string {
	return fmt.Sprintf("is %s-compressed, which Macroscope does not decompress: decompress it first (%s), or compress it with gzip, bzip2 or zstd", name, tool)
}

// ArchiveError is the error text for an archive given as a trace.
func ArchiveError(kind string) string {
	return fmt.Sprintf("is a %s archive, not a trace: extract it and give the trace file (or directory) inside", kind)
}

// LFSPointer tells whether head is a Git LFS pointer file, the few lines
// a repository keeps in place of a large file its checkout has not
// fetched ("version https://git-lfs.github.com/spec/v1", "oid sha256:...",
// "size N"), and the size of the file it stands for ("" if not given, or
// not a number: the size goes into an error message, which says no more
// of a file than it can vouch for).
func LFSPointer(head []byte) (size string, ok bool) {
	const version = "version https://git-lfs.github.com/spec/v1\n"
	if !bytes.HasPrefix(head, []byte(version)) {
		return "", false
	}
	for _, line := range bytes.Split(head[len(version):], []byte("\n")) {
		if n, found := bytes.CutPrefix(line, []byte("size ")); found {
			n = bytes.TrimSpace(n)
			if len(n) == 0 || len(n) > 20 || bytes.ContainsFunc(n, func(r rune) bool { return r < '0' || r > '9' }) {
				return "", true
			}
			return string(n), true
		}
	}
	return "", true
}

// LFSPointerError is the error text for a Git LFS pointer given as a
// trace.
func LFSPointerError(size string) string {
	what := "the file"
	if size != "" {
		what = "the file of " + size + " bytes"
	}
	return "is a Git LFS pointer, not the trace: " + what + " it stands for was not fetched; run git lfs pull (git lfs pull --include=PATH for this one) in its repository"
}
