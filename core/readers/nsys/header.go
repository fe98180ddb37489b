package nsys

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
)

// checkSize compares the file's size with the size its SQLite header
// gives (page size times page count, bytes 16-17 and 28-31, trusted when
// bytes 92-95 match the change counter at 24-27). SQLite reads a page
// cut short as if zeros followed, so a copy that lost its last bytes may
// otherwise open without a word.
func checkSize(path string) error {
	f, err := ingest.OpenFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	var h [100]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return nil // too short for a header: sqlitedb.Open tells
	}
	pageSize := int64(binary.BigEndian.Uint16(h[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	pages := int64(binary.BigEndian.Uint32(h[28:32]))
	if pages == 0 || binary.BigEndian.Uint32(h[92:96]) != binary.BigEndian.Uint32(h[24:28]) {
		return nil // a size the header does not vouch for
	}
	if want := pages * pageSize; st.Size() < want {
		return &errs.FormatError{File: path, AtOffset: true, Offset: st.Size(), Err: fmt.Errorf(
			"the database is truncated: its header gives %d pages of %d bytes (%d bytes), the file has %d", pages, pageSize, want, st.Size())}
	}
	return nil
}
