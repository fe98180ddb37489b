package errs

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	if got := Quote("abc\n"); got != `"abc\n"` {
		t.Errorf("Quote = %s", got)
	}
	long := strings.Repeat("é", 1e6) // 2 MB
	got := Quote(long)
	if len(got) > MaxQuote+40 || !strings.HasSuffix(got, `... (2000000 bytes)`) || !strings.HasPrefix(got, `"éé`) {
		t.Errorf("Quote of 2 MB = %s", got)
	}
	if QuoteBytes([]byte(long)) != got {
		t.Errorf("QuoteBytes differs from Quote")
	}
	if got := Excerpt(long); strings.HasPrefix(got, `"`) || len(got) > MaxQuote+40 {
		t.Errorf("Excerpt = %s", got)
	}
}

// An error at byte 0 keeps its position; an unknown offset is not printed;
// a message stays under MaxMessage whatever the reader put in it.
func TestFormatErrorPosition(t *testing.T) {
	at0 := &FormatError{File: "f", AtOffset: true, Err: errors.New("bad magic")}
	if got := at0.Error(); got != "f: byte 0: bad magic" || !at0.HasOffset() {
		t.Errorf("%q", got)
	}
	unknown := &FormatError{File: "f", Err: errors.New("bad")}
	if got := unknown.Error(); got != "f: bad" || unknown.HasOffset() {
		t.Errorf("%q", got)
	}
	huge := &FormatError{File: "f", Line: 3, Err: errors.New(strings.Repeat("x", 1e6))}
	if got := huge.Error(); len(got) > MaxMessage+60 || !strings.Contains(got, "message cut") {
		t.Errorf("%d bytes", len(got))
	}
	same := &FormatError{File: "f", Err: &FormatError{File: "f", Line: 2, Err: errors.New("inner")}}
	if got := same.Error(); got != "f:2: inner" {
		t.Errorf("%q", got)
	}
	row := &FormatError{File: "r.sqlite", Where: "table T, row 7", Err: errors.New("bad")}
	if got := row.Error(); got != "r.sqlite: table T, row 7: bad" {
		t.Errorf("%q", got)
	}
}

// TestNameFile: the caller that opened a file names it in an EmptyError
// or a FormatError that names none, and leaves every other error, and an EmptyError that
// already names its data, as they are.
func TestNameFile(t *testing.T) {
	if got := NameFile(Empty("", "the trace has no %ss to model", "state"), "a.trace").Error(); got != "a.trace: the trace has no states to model" {
		t.Errorf("named: %q", got)
	}
	if got := NameFile(Empty("", "nothing"), "").Error(); got != "nothing" {
		t.Errorf("no file to name: %q", got)
	}
	if got := NameFile(Empty("b.trace", "nothing"), "a.trace").Error(); got != "b.trace: nothing" {
		t.Errorf("already named: %q", got)
	}
	if got := NameFile(Format("", 0, "a cycle"), "a.trace").Error(); got != "a.trace: a cycle" {
		t.Errorf("a format error without its file: %q", got)
	}
	if got := NameFile(Format("b.trace", 3, "bad"), "a.trace").Error(); got != "b.trace:3: bad" {
		t.Errorf("a format error naming its file: %q", got)
	}
	if got := Format("", 0, "a cycle").Error(); got != "a cycle" {
		t.Errorf("a format error not named yet: %q", got)
	}
	arg := Argument("state_types", "the trace has no state type %q", "S")
	if got := NameFile(arg, "a.trace"); got != error(arg) || strings.Contains(got.Error(), "a.trace") {
		t.Errorf("an argument's error: %q", got)
	}
}

func ExampleNameFile() {
	// A model built while reading knows the data, not the file: the
	// caller that opened it names it.
	err := Empty("", "the trace has no states to model")
	fmt.Println(NameFile(err, "run.otf2"))
	// Output: run.otf2: the trace has no states to model
}
