package ingest_test

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/ingest"
)

func TestWideText(t *testing.T) {
	for head, want := range map[string]string{
		"\xff\xfe[\x00":         "UTF-16LE",
		"\xfe\xff\x00[":         "UTF-16BE",
		"\xff\xfe\x00\x00[\x00": "UTF-32LE",
		"\x00\x00\xfe\xff":      "UTF-32BE",
		"\xef\xbb\xbf[":         "", // UTF-8's mark: read as UTF-8
		"[{":                    "",
		"\xff":                  "",
		"":                      "",
	} {
		if got := ingest.WideText([]byte(head)); got != want {
			t.Errorf("%q: %q, want %q", head, got, want)
		}
	}
	if got, want := ingest.WideTextError("UTF-16LE"), "is UTF-16LE text (it starts with its byte-order mark): traces are read as UTF-8; convert it first (iconv -f UTF-16 -t UTF-8)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
