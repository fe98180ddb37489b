package otf2

// forEachDefRecord calls fn for every record of a definition file held in
// data. The file is a sequence of chunks of chunkSize bytes (the last one
// may be shorter); each starts with a header, then holds records (a type
// byte, a length, the attributes) up to an end-of-chunk marker whose
// padding fills the rest of the chunk. An end-of-file marker ends the data.
// fn receives a cursor on the record's attributes and the file offset of
// its type byte.
func forEachDefRecord(data []byte, chunkSize uint64, fn func(kind uint8, rec *cursor, at int64) *decodeError) *decodeError {
	for start := uint64(0); start < uint64(len(data)); start += chunkSize {
		end := min(start+chunkSize, uint64(len(data)))
		c := cursor{buf: data[start:end], base: int64(start)}
		if err := readHeader(&c, true); err != nil {
			return err
		}
	records:
		for {
			at := c.offset()
			kind := c.u8()
			if c.err != nil {
				return c.err
			}
			switch kind {
			case endOfChunk:
				break records
			case endOfFile, endOfBuffer:
				return nil
			case chunkHeader:
				c.pos--
				c.fail(false, "chunk header inside a chunk")
				return c.err
			}
			rec := c.record(c.length())
			if c.err != nil {
				return c.err
			}
			if err := fn(kind, &rec, at); err != nil {
				return err
			}
		}
	}
	return &decodeError{offset: int64(len(data)), msg: "file ends without an end-of-file marker (truncated?)"}
}
