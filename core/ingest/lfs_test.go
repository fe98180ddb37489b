package ingest

import "testing"

// A Git LFS pointer's size is passed on only when it is a number: the
// error message echoes no other text of the file.
func TestLFSPointerSize(t *testing.T) {
	const version = "version https://git-lfs.github.com/spec/v1\n"
	for _, c := range []struct {
		head, size string
		ok         bool
	}{
		{version + "oid sha256:d7e7\nsize 564133236\n", "564133236", true},
		{version + "oid sha256:d7e7\n", "", true},
		{version + "size \x1b[2J\x07 rm -rf\n", "", true},
		{version + "size 12a\n", "", true},
		{version + "size 123456789012345678901234\n", "", true},
		{"version 1\nsize 12\n", "", false},
	} {
		size, ok := LFSPointer([]byte(c.head))
		if size != c.size || ok != c.ok {
			t.Errorf("%q: %q, %v; want %q, %v", c.head, size, ok, c.size, c.ok)
		}
	}
}
