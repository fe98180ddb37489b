// Package trace is Macroscope's canonical model of an execution trace: a
// hierarchy of typed containers (machines, processes, threads, links...)
// holding state intervals, piecewise-constant variables, links between
// containers and point events. Every reader produces it; every analysis
// consumes it.
//
// Readers stream: they call a Sink as entities complete, so an analysis that
// only needs a summary (a microscopic model, moments) never holds the events.
// Trace itself is the Sink that keeps everything, stored column-wise.
package trace

// Kind says what a Type describes.
type Kind uint8

// The kinds of types.
const (
	KindContainer Kind = iota
	KindState
	KindVariable
	KindEvent
	KindLink
)

var kindNames = [...]string{"Container", "State", "Variable", "Event", "Link"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(?)"
}

// None marks an absent reference (the root's parent, a type without parent).
const None int32 = -1

// Type describes containers or entities (states, variables, events, links).
type Type struct {
	Name   string
	Alias  string // identifier used in the file, if different from Name
	Kind   Kind
	Parent int32  // container type whose containers hold these; None for the root type
	Start  int32  // links only: container type of the source
	End    int32  // links only: container type of the destination
	Color  string // as given in the file ("r g b" in [0,1]), possibly empty
	// Quoted tells that the file wrote Name between double quotes. Names
	// never keep the quotes; writers that reproduce a tool's output
	// verbatim (PajeNG keeps them) need to know.
	Quoted bool
	// Role tells what the type stands for where the format's conventions
	// say it (see Role); RoleNone otherwise.
	Role Role
}

// MaxDepth bounds the nesting of the containers (and of the container
// types) a reader accepts below the root. The producers Macroscope reads
// nest a dozen levels at most; a crafted file may nest a container in
// each of its lines, and the views walk the hierarchy recursively: a
// million levels overflow a goroutine's stack (1 GB), a fatal error that
// no recover stops, which ends the Python interpreter with it.
const MaxDepth = 10000

// Container is a node of the resource hierarchy. End is Unset while the
// container lives; Finish sets it for the containers still alive.
type Container struct {
	Name     string
	Alias    string
	Type     int32 // index into Trace.Types; None for the root
	Parent   int32 // index into Trace.Containers; None for the root
	Start    Time
	End      Time
	Children []int32
	Quoted   bool // the file wrote Name between double quotes (see Type.Quoted)
}

// Value is a named value of a state, event or link type (Pajé's entity value).
type Value struct {
	Type int32
	// Step is the number of the step a value of role RoleStep or
	// RoleStepCall is (N of PyTorch's ProfilerStep#N), as its reader
	// reads it from the name: the views know no step's name. Zero for
	// other values. (Beside Type, it takes no room of its own.)
	Step   int32
	Name   string
	Alias  string
	Color  string
	Quoted bool // the file wrote Name between double quotes (see Type.Quoted)
	// Role tells what the value stands for where the format's conventions
	// say it (RoleOff, RoleRoot, RoleUseful); RoleNone otherwise. (Beside Quoted, it
	// takes no room of its own.)
	Role Role
	// Category groups values across names, when the format has such a
	// notion (the cat of Chrome trace events: "kernel", "cpu_op",
	// "cuda_runtime"...); empty otherwise. Two values of one type may share
	// a name and differ by category: readers that set it define one value
	// per (type, name, category).
	Category string
}

// State is a state interval. Depth is the nesting level: 0 for a state set
// directly, n for the n-th pushed over it (Pajé's "imbrication").
type State struct {
	Container, Type, Value int32
	Start, End             Time
	Depth                  int32
	// Order ranks the state among those of its container and type by the
	// moment it began (0, 1, 2...): states that begin at the same instant
	// keep the order in which the file opened them, which their End and
	// Depth cannot always tell.
	Order int32
}

// Variable is one piece of a piecewise-constant variable.
type Variable struct {
	Container, Type int32
	Start, End      Time
	Value           float64
}

// Link is a communication or relation between two containers.
type Link struct {
	Container   int32 // the common container the link is declared in
	Type, Value int32
	Start, End  Time
	From, To    int32 // source and destination containers
	Key         string
	Size        float64 // bytes, when the format tells; NaN otherwise
}

// Event is a point event.
type Event struct {
	Container, Type, Value int32
	Time                   Time
}

// Sink receives a trace as a reader decodes it. Definitions (types, values,
// containers) come before anything that refers to them; an entity comes
// once it is complete. Indices are dense and assigned in arrival order, so
// the n-th DefineType call defines type n; container 0 is the root, which
// exists before the first call, so the first CreateContainer makes container
// 1. Finish comes last, once, with the first and last instants of the trace;
// containers still alive then end at the last.
type Sink interface {
	DefineType(t Type)
	DefineValue(v Value)
	CreateContainer(c Container)
	DestroyContainer(id int32, at Time)
	State(s State)
	Variable(v Variable)
	Link(l Link)
	Event(e Event)
	Finish(start, end Time)
}

// ArgsSink is implemented by sinks that can keep the free-form arguments
// some formats attach to each state or event (the args object of a Chrome
// trace event). Arguments can weigh as much as the rest of the trace, so a
// reader gathers them only when its sink implements ArgsSink and KeepsArgs
// says yes. It then calls Args right after the State or Event call they
// belong to: index is that entity's index among the states (kind
// KindState) or events (KindEvent) delivered so far, json the arguments'
// text, a JSON object. Entities without arguments get no call, so a sink
// can store them sparsely.
type ArgsSink interface {
	KeepsArgs() bool
	Args(kind Kind, index int, json string)
}

// StreamSink is implemented by sinks that want the GPU stream (queue)
// each operation ran on where the format records it per operation, as
// Kineto's args.stream: its reader, which alone knows where the file
// says it, calls StateStream right after the State call, with that
// state's index among the states delivered so far and the stream's id
// as the producer wrote it, a 32-bit integer (Kineto writes the -1 of
// the operations on no stream as 4294967295, which is -1 here). States
// the file gives no stream get no call.
type StreamSink interface {
	StateStream(index int, stream int32)
}

// ReadOptions are the options every reader accepts.
type ReadOptions struct {
	// Progress, if set, is called now and then with the number of input
	// bytes consumed so far and the total (0 when unknown).
	Progress func(done, total int64)
	// Cancel, if set, stops the read once it is closed: the reader returns
	// ErrCanceled soon after (it looks at least every few megabytes of
	// input), leaving the sink with part of the trace, to be discarded.
	Cancel <-chan struct{}
	// Notes, if set, receives what the reader skipped, tolerated or found
	// missing (see Notes; readers call o.Skip, o.Warn, o.Incomplete).
	Notes *Notes
	// Strict turns an incomplete trace (Notes.Incomplete: a cut last
	// record, a missing part) into an error at the end of the read instead
	// of a trace marked incomplete. The door (ingest.Strict) checks it
	// once, after the reader returns, so readers only record the reason.
	Strict bool
	// Hold, if set, is told of the memory a reader holds outside its sink
	// (a document parsed whole before anything is delivered, the records
	// of a database gathered, a long line being assembled): n bytes more,
	// or fewer when negative. It returns an error once the read's memory
	// budget is exceeded (see budget.Meter), which the reader returns:
	// the read then ends with the figure it reached instead of the
	// process running out of memory. Readers call it through Held.
	Hold func(n int64) error
}

// Held tells o.Hold that the reader holds n bytes more (fewer when
// negative); nil when Hold is not set.
func (o ReadOptions) Held(n int64) error {
	if o.Hold == nil || n == 0 {
		return nil
	}
	return o.Hold(n)
}
