package otf2

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// copyArchive copies the archive whose anchor is src (name.otf2, name.def,
// name/) into dir under another name, as OTF2 names an archive's files:
// after the anchor's base name.
func copyArchive(t *testing.T, src, dir, name string) string {
	t.Helper()
	from := strings.TrimSuffix(src, ".otf2")
	to := filepath.Join(dir, name)
	cp := func(a, b string) {
		data, err := os.ReadFile(a)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(b, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cp(src, to+".otf2")
	cp(from+".def", to+".def")
	if err := os.Mkdir(to, 0o700); err != nil {
		t.Fatal(err)
	}
	locs, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range locs {
		cp(filepath.Join(from, l.Name()), filepath.Join(to, l.Name()))
	}
	return to + ".otf2"
}

// TestAnchorAnyName reads pipit's ping-pong archive renamed as APEX names
// its archives (APEX.otf2, APEX.def, APEX/): through the directory and
// through the anchor, it reads as the original.
func TestAnchorAnyName(t *testing.T) {
	orig := archivePath(t, "pipit/tests/data/ping-pong-otf2")
	want, err := readFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	anchor := copyArchive(t, orig, dir, "APEX")
	// A file named *.otf2 that is not an anchor does not count.
	if err := os.WriteFile(filepath.Join(dir, "notes.otf2"), []byte("not an archive\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !Format.SniffDir(dir) {
		t.Errorf("SniffDir(%s) is false", dir)
	}
	for _, path := range []string{dir, anchor} {
		got, err := readFile(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		got.Files, want.Files = nil, nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s reads differently from %s", path, orig)
		}
		if got.Events.Len()+got.States.Len() == 0 {
			t.Errorf("%s: empty trace", path)
		}
	}

	// Two archives in one directory: the error lists them.
	copyArchive(t, orig, dir, "traces")
	_, err = readFile(dir)
	var ae *errs.ArgumentError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "holds 2 OTF2 archives (APEX.otf2, traces.otf2): give the anchor file of the one to read") {
		t.Errorf("two archives: %v", err)
	}
	if Format.SniffDir(dir) {
		t.Errorf("SniffDir is true on a directory of two archives")
	}

	// No anchor: the error names the *.otf2 files that are not.
	empty := t.TempDir()
	os.WriteFile(filepath.Join(empty, "x.otf2"), []byte("\x03\x42NOPE\x00"), 0o600)
	_, err = readFile(empty)
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "no *.otf2 file there (x.otf2) starts like one") {
		t.Errorf("no anchor: %v", err)
	}
}

// TestAnchorAnyNameSynthetic is TestAnchorAnyName on a synthetic archive,
// which always exists.
func TestAnchorAnyNameSynthetic(t *testing.T) {
	l := &enc{}
	evTime(l, 1010)
	evRegion(l, evEnter, regionMain)
	evTime(l, 1090)
	evRegion(l, evLeave, regionMain)
	orig := testArchive{defs: baseDefs(false).b, locations: map[uint64][]byte{0: chunked(false, 0, l.b)}}.write(t, t.TempDir())
	want, err := readFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyArchive(t, orig, dir, "APEX")
	got, err := readFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	got.Files, want.Files = nil, nil
	if !reflect.DeepEqual(got, want) || got.States.Len() != 1 || got.States.At(0).Start != 10 || got.States.At(0).End != 90 {
		t.Errorf("APEX.otf2 reads %+v, traces.otf2 %+v", got.States.Slice(), want.States.Slice())
	}
}
