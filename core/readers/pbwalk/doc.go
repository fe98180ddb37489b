// Package pbwalk walks the fields of a protobuf message in its wire form,
// for the readers of formats written as protobuf (Perfetto's traces,
// TensorFlow's and JAX's XSpace).
//
// Why a walker and not generated code: the readers decode the few fields
// they model straight from the input's bytes, as they come, with no
// message tree, no reflection and no copy of the strings they skip; the
// traces run to gigabytes and their schemas to hundreds of messages. The
// walk itself is the same for every such format, and so are its
// failures: one package decodes the tags, varints and lengths, and words
// a malformed field the same way in every reader.
//
// The ground is google.golang.org/protobuf/encoding/protowire, the
// official decoder of the wire format: every tag, varint and length it
// does not take on the fast path goes to protowire, whose verdicts the
// errors word. The fast path decodes the one-byte varints and the one-
// and two-byte tags that make most of a trace (field numbers below 2048,
// lengths below 128), as a reader of hundreds of millions of fields
// needs.
//
// # Errors
//
// A malformed field (a bad tag, an invalid wire type, a varint past ten
// bytes or past the end of the message, a length past the end of the
// message) stops the walk with a *Corrupt error at the byte offset of the
// field's tag in the input: a message is walked whole, so a length past
// its end is the file's fault, never a reason to read further. The
// offsets are those of the input as the reader sees it (decompressed):
// the walk of a nested message starts at the offset of its bytes
// (Field.Off), so that an error deep inside a file is located in it.
//
// Groups (wire types 3 and 4), in no message the readers know, are
// skipped whole, as protobuf parsers skip unknown fields.
package pbwalk
