package pybind

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// decoded returns the JSON an encoded error carries.
func decoded(t *testing.T, err error) bridgeError {
	t.Helper()
	if err == nil || !strings.HasPrefix(err.Error(), errorPrefix) {
		t.Fatalf("error %v is not encoded for Python", err)
	}
	var be bridgeError
	if jerr := json.Unmarshal([]byte(strings.TrimPrefix(err.Error(), errorPrefix)), &be); jerr != nil {
		t.Fatal(jerr)
	}
	return be
}

const jacobi = "../testdata/jacobi32.trace"

func TestReadingCompletes(t *testing.T) {
	r, err := StartRead(jacobi, `{"format":"paje"}`)
	if err != nil {
		t.Fatal(err)
	}
	for {
		done, err := r.Wait(50)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			break
		}
	}
	tr, err := r.Trace()
	if err != nil {
		t.Fatal(err)
	}
	want, err := ReadPaje(jacobi)
	if err != nil {
		t.Fatal(err)
	}
	if tr.t.States.Len() != want.t.States.Len() || tr.t.End != want.t.End || tr.format != "paje" {
		t.Fatalf("read %d states to %v (%s), want %d to %v", tr.t.States.Len(), tr.t.End, tr.format, want.t.States.Len(), want.t.End)
	}
	var p struct{ Done, Total int64 }
	js, _ := r.Progress()
	if err := json.Unmarshal([]byte(js), &p); err != nil || p.Done != p.Total || p.Total != 643697 {
		t.Fatalf("progress %s, want all of the 643697 bytes", js)
	}
}

// TestReadingCanceled cancels the read of 20 MB as soon as it starts; the
// reader looks every megabyte, so it stops long before the end.
func TestReadingCanceled(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(bigHeader)
	for i := 0; b.Len() < 20<<20; i++ {
		fmt.Fprintf(&b, "3 %d.%06d S h1 s%d\n", i/1000, i%1000, i%3)
	}
	path := filepath.Join(t.TempDir(), "big.trace")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPaje(path); err != nil {
		t.Fatalf("the trace is not valid: %v", err)
	}
	r, err := StartRead(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Cancel(); err != nil {
		t.Fatal(err)
	}
	r.Cancel() // twice is harmless
	_, err = r.Trace()
	if be := decoded(t, err); !strings.Contains(be.Message, "reading canceled") {
		t.Fatalf("canceled read: %+v", be)
	}
}

func TestReadingPanicSurfaces(t *testing.T) {
	r, _ := newReading()
	go r.run(func() error { panic("boom") })
	_, err := r.Trace()
	if be := decoded(t, err); be.Kind != "internal" || be.Message != "internal error: boom" || !strings.Contains(be.Cause, "reading_test.go") {
		t.Fatalf("panic became %+v", be)
	}
}

func TestStartReadOptions(t *testing.T) {
	cases := []struct{ path, options, kind, param, text string }{
		{jacobi, `{"view":"cpu"}`, "argument", "view", "not an option of the paje reader"},
		{jacobi, `{"vieww":"cpu"}`, "argument", "vieww", `not an option of the paje reader (it takes strict`},
		{jacobi, `{"strict":"yes"}`, "argument", "strict", `wants a bool`},
		{jacobi, `[1]`, "argument", "options", `cannot unmarshal`},
		{jacobi, `{"format":"xml"}`, "argument", "format", `unknown format "xml"`},
		{"/no/such/trace.paje", "", "not_found", "", ""},
	}
	for _, c := range cases {
		_, err := StartRead(c.path, c.options)
		be := decoded(t, err)
		if be.Kind != c.kind || be.Param != c.param || !strings.Contains(be.Message, c.text) {
			t.Errorf("%s %s: %+v", c.path, c.options, be)
		}
	}
}

const bigHeader = `%EventDef PajeDefineContainerType 0
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeDefineStateType 1
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeCreateContainer 2
% Time date
% Alias string
% Type string
% Container string
% Name string
%EndEventDef
%EventDef PajeSetState 3
% Time date
% Type string
% Container string
% Value string
%EndEventDef
0 H 0 Host
1 S H State
2 0 h1 H 0 host1
`
