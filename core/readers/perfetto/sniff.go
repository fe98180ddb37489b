package perfetto

import (
	"bytes"
	"errors"
	"io"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// sniff reports whether head, the first bytes of a file, look like a
// Perfetto trace: a Trace message whose first field is a packet (field 1,
// length-delimited, so the first byte is 0x0a) whose own fields are
// TracePacket fields of the right wire types, and, if the first packet
// ends within head, a second packet starting the same way. A first
// packet longer than head must show at least two whole fields. Text starting
// with a newline decodes as protobuf surprisingly often; its fields are
// not those of a packet.
func sniff(head []byte) bool {
	packets := 0
	for len(head) > 0 && packets < 2 {
		if head[0] != 0x0a {
			return false
		}
		n, k := protowire.ConsumeVarint(head[1:])
		if k < 0 {
			return false
		}
		if n == 0 || n > maxPacket {
			return false
		}
		body := head[1+k:]
		whole := uint64(len(body)) >= n
		if whole {
			body = body[:n]
		}
		known, ok := packetFields(body, whole)
		if !ok || known == 0 || !whole && known < 2 {
			return false
		}
		packets++
		if !whole {
			return true
		}
		head = head[1+k+int(n):]
	}
	return packets > 0
}

// packetFields checks the fields of a packet: each must be a TracePacket
// field with its wire type. When the packet is cut (whole false), the
// last field may be cut too. It returns how many fields it checked.
func packetFields(b []byte, whole bool) (int, bool) {
	count := 0
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return count, !whole
		}
		if !wireTypeFits(num, typ) {
			return count, false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return count, !whole
		}
		if typ == protowire.BytesType && holdsMessage(num) {
			v, _ := protowire.ConsumeBytes(b[n:])
			if !validMessage(v) {
				return count, false
			}
		}
		count++
		b = b[n+m:]
	}
	return count, true
}

// wireTypeFits tells whether field num of TracePacket may have wire type
// typ: the metadata fields are varints (interned data and defaults are
// messages), every data field is a message or bytes, and the extension
// range 1000 to 1999 holds messages too.
func wireTypeFits(num protowire.Number, typ protowire.Type) bool {
	switch num {
	case pktInternedData, pktDefaults:
		return typ == protowire.BytesType
	case pktTrustedUID, pktTimestamp, pktSequenceID, pktSequenceFlags, pktIncrementalCleared,
		pktPreviousDropped, pktClockID, pktTrustedPID, pktFirstOnSequence, pktMachineID:
		return typ == protowire.VarintType
	}
	if typ != protowire.BytesType {
		return false
	}
	switch num {
	case pktFtraceEvents, pktProcessTree, pktClockSnapshot, pktTrackEvent, pktProcessDescriptor,
		pktThreadDescriptor, pktCompressedPackets, pktTrackDescriptor, pktZstdCompressed:
		return true
	}
	_, known := packetKinds[num]
	return known || num >= 1000 && num <= 1999
}

// holdsMessage tells the length-delimited TracePacket fields that hold a
// message rather than raw bytes.
func holdsMessage(num protowire.Number) bool {
	switch num {
	case pktCompressedPackets, pktZstdCompressed, 36: // 36: synchronization_marker
		return false
	}
	return true
}

// validMessage reports whether b parses as a protobuf message: fields of
// the wire types messages use, each whole, up to its last byte.
func validMessage(b []byte) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || typ == protowire.StartGroupType || typ == protowire.EndGroupType {
			return false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return false
		}
		b = b[n+m:]
	}
	return true
}

// namedOr returns err, the error of a file that did not read as a
// Perfetto trace, or, when the file is something explain names (an
// ftrace text trace, an HTML page), an error that says what it is and
// names the way out.
func namedOr(err error, open func() (io.ReadCloser, error), name string) error {
	var fe *errs.FormatError
	if !errors.As(err, &fe) {
		return err
	}
	f, oerr := open()
	if oerr != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, explainHead)
	n, _ := io.ReadFull(f, head)
	if why := explain(head[:n]); why != "" {
		return errs.Format(name, 0, "is %s", why)
	}
	return err
}

// explainHead is how many first bytes explain looks at, as the door
// gives them to ExplainFile.
const explainHead = 4096

// explain says what a file that is no Perfetto trace but is taken for
// one, or for the Android traces this reader reads, is, with the way
// out; "" for any other file. head is its first bytes.
func explain(head []byte) string {
	switch {
	case ftraceText(head):
		return "an ftrace text trace (systrace's or the kernel's trace file: \"# tracer:\"), which macroscope does not read: " +
			"record the same events as a Perfetto protobuf trace (Android 9 and later: perfetto -o trace.pftrace, " +
			"or Perfetto's record_android_trace; Linux: Perfetto's tracebox), whose sched_switch and atrace slices it reads"
	case htmlPage(head):
		return "an HTML page, not a trace file: a trace viewer page (systrace's .html, Catapult's trace2html, " +
			"a saved about:tracing page) holds its trace in a script of the page; give macroscope the trace " +
			"itself (a Perfetto protobuf trace, Chrome's JSON), as recorded before it was made into a page"
	}
	return ""
}

// ftraceText reports whether head starts as the kernel's ftrace text
// output does, as systrace and trace-cmd print it: "# tracer: <name>".
func ftraceText(head []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(head, " \t\r\n\ufeff"), []byte("# tracer:"))
}

// htmlPage reports whether head starts an HTML document.
func htmlPage(head []byte) bool {
	h := bytes.ToLower(bytes.TrimLeft(head, " \t\r\n\ufeff"))
	return bytes.HasPrefix(h, []byte("<!doctype html")) || bytes.HasPrefix(h, []byte("<html"))
}
