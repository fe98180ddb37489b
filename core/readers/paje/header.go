package paje

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// eventKind is one of the Pajé event types a definition can name.
type eventKind uint8

const (
	evDefineContainerType eventKind = iota
	evDefineStateType
	evDefineVariableType
	evDefineEventType
	evDefineLinkType
	evDefineEntityValue
	evCreateContainer
	evDestroyContainer
	evSetVariable
	evAddVariable
	evSubVariable
	evSetState
	evPushState
	evPopState
	evResetState
	evStartLink
	evEndLink
	evNewEvent
	evTraceFile
	numEventKinds
)

var eventNames = map[string]eventKind{
	"PajeDefineContainerType": evDefineContainerType,
	"PajeDefineStateType":     evDefineStateType,
	"PajeDefineVariableType":  evDefineVariableType,
	"PajeDefineEventType":     evDefineEventType,
	"PajeDefineLinkType":      evDefineLinkType,
	"PajeDefineEntityValue":   evDefineEntityValue,
	"PajeCreateContainer":     evCreateContainer,
	"PajeDestroyContainer":    evDestroyContainer,
	"PajeSetVariable":         evSetVariable,
	"PajeAddVariable":         evAddVariable,
	"PajeSubVariable":         evSubVariable,
	"PajeSetState":            evSetState,
	"PajePushState":           evPushState,
	"PajePopState":            evPopState,
	"PajeResetState":          evResetState,
	"PajeStartLink":           evStartLink,
	"PajeEndLink":             evEndLink,
	"PajeNewEvent":            evNewEvent,
	"PajeTraceFile":           evTraceFile,
}

var kindNames [numEventKinds]string

func init() {
	for name, k := range eventNames {
		kindNames[k] = name
	}
}

// role is the meaning of a field. The order is PajeNG's, which lists
// missing fields in this order.
type role uint8

const (
	roleNone  role = iota // a user field: kept out of the model
	roleEvent             // the event id, always the first field of a line
	roleTime
	roleName
	roleType
	roleContainer
	roleStartContainerType
	roleEndContainerType
	roleStartContainer
	roleEndContainer
	roleValue
	roleKey
	roleAlias
	roleColor
	roleLine
	roleFile
	roleFilename
	numRoles
)

var roleLabels = [numRoles]string{"", "Event", "Time", "Name", "Type", "Container",
	"StartContainerType", "EndContainerType", "StartContainer", "EndContainer",
	"Value", "Key", "Alias", "Color", "Line", "File", "Filename"}

var roleNames = map[string]role{}

// oldRoleNames are the field names of the original Pajé dialect, which
// PajeNG accepts only with --no-strict.
var oldRoleNames = map[string]role{
	"ContainerType":       roleType,
	"EntityType":          roleType,
	"SourceContainerType": roleStartContainerType,
	"DestContainerType":   roleEndContainerType,
	"SourceContainer":     roleStartContainer,
	"DestContainer":       roleEndContainer,
}

func init() {
	for r := roleTime; r < numRoles; r++ {
		roleNames[roleLabels[r]] = r
	}
}

// required lists the fields each event kind cannot do without, in role order.
var required = [numEventKinds][]role{
	evDefineContainerType: {roleName, roleType},
	evDefineStateType:     {roleName, roleType},
	evDefineVariableType:  {roleName, roleType},
	evDefineEventType:     {roleName, roleType},
	evDefineLinkType:      {roleName, roleType, roleStartContainerType, roleEndContainerType},
	evDefineEntityValue:   {roleName, roleType},
	evCreateContainer:     {roleTime, roleName, roleType, roleContainer},
	evDestroyContainer:    {roleTime, roleName, roleType},
	evSetVariable:         {roleTime, roleType, roleContainer, roleValue},
	evAddVariable:         {roleTime, roleType, roleContainer, roleValue},
	evSubVariable:         {roleTime, roleType, roleContainer, roleValue},
	evSetState:            {roleTime, roleType, roleContainer, roleValue},
	evPushState:           {roleTime, roleType, roleContainer, roleValue},
	evPopState:            {roleTime, roleType, roleContainer},
	evResetState:          {roleTime, roleType, roleContainer},
	evStartLink:           {roleTime, roleType, roleContainer, roleValue, roleStartContainer, roleKey},
	evEndLink:             {roleTime, roleType, roleContainer, roleValue, roleEndContainer, roleKey},
	evNewEvent:            {roleTime, roleType, roleContainer, roleValue},
	evTraceFile:           {roleType, roleContainer, roleFilename},
}

var fieldTypes = map[string]bool{"date": true, "int": true, "double": true, "float": true, "hex": true, "string": true, "color": true}

// eventDef is a parsed %EventDef block.
type eventDef struct {
	name   string
	id     string
	kind   eventKind
	line   int      // where the definition starts
	names  []string // field names as written, in file order (the event id excluded)
	types  []string // declared type of each field
	roles  []role   // role of each field
	column [numRoles]int
	// size is the column of a numeric user field named Size in a link
	// event (SimGrid's tracing/smpi/display-sizes writes the message's
	// bytes there), -1 without one.
	size int
	// keyed lists the columns of the identifiers every event of this kind
	// looks up (Type, Container, Value): their hashes are computed along
	// with the fields, by the tokenizers.
	keyed []int
	// stateKeys: a SetState, PushState or PopState with a container and a
	// type, which plainState may simulate from its record's keys.
	stateKeys bool
	// stateCols are the columns of the container, type and value (-1:
	// none), the keys of a state event's record.
	stateCols [3]int32
	// stateLine: a stateKeys event with a date and at most
	// maxStateLineFields fields, which stateLine may split alone.
	stateLine bool
	// stateShift and timeShift tell where stateLines finds the fields of
	// stateCols and the date among the offsets of a line's fields after
	// the event id, a byte a field: 8 times the field's column,
	// noStateField for a field the event does not have.
	stateShift [3]uint
	timeShift  uint
}

// noStateField is the stateShift of a field a state event does not have.
const noStateField = 64

func newEventDef(name, id string, line int) (*eventDef, bool) {
	kind, ok := eventNames[name]
	if !ok {
		return nil, false
	}
	d := &eventDef{name: name, id: id, kind: kind, line: line, size: -1}
	for i := range d.column {
		d.column[i] = -1
	}
	return d, true
}

// addField adds a field; strict rejects the old dialect's names, which then
// count as user fields, as in PajeNG.
func (d *eventDef) addField(name, typ string, strict bool) error {
	if !fieldTypes[typ] {
		return fmt.Errorf("field %s of %s has unknown type %s", name, d.name, errs.Quote(typ))
	}
	r, ok := roleNames[name]
	if !ok && !strict {
		r = oldRoleNames[name]
	}
	if r != roleNone {
		if d.column[r] >= 0 {
			return fmt.Errorf("field %s of %s is defined twice", roleLabels[r], d.name)
		}
		d.column[r] = len(d.roles)
	}
	if r == roleNone && name == "Size" && (d.kind == evStartLink || d.kind == evEndLink) &&
		(typ == "int" || typ == "double" || typ == "float") {
		d.size = len(d.roles)
	}
	d.names = append(d.names, name)
	d.types = append(d.types, typ)
	d.roles = append(d.roles, r)
	return nil
}

// missing returns the required fields the definition lacks.
func (d *eventDef) missing() []role {
	var out []role
	for _, r := range required[d.kind] {
		if d.column[r] < 0 {
			out = append(out, r)
		}
	}
	return out
}

// finish checks the definition. Unless strict, a DestroyContainer that
// names its container in a Container field, as SimGrid did until 2011, is
// accepted.
func (d *eventDef) finish(strict bool) []role {
	if !strict && d.kind == evDestroyContainer && d.column[roleName] < 0 && d.column[roleContainer] >= 0 {
		d.column[roleName] = d.column[roleContainer]
	}
	for _, r := range []role{roleType, roleContainer, roleValue} {
		if c := d.column[r]; c >= 0 {
			d.keyed = append(d.keyed, c)
		}
	}
	d.stateKeys = (d.kind == evSetState || d.kind == evPushState || d.kind == evPopState) &&
		d.column[roleContainer] >= 0 && d.column[roleType] >= 0
	for k, r := range [3]role{roleContainer, roleType, roleValue} {
		d.stateCols[k] = int32(d.column[r])
	}
	d.stateLine = d.stateKeys && d.column[roleTime] >= 0 && len(d.roles)+1 <= maxStateLineFields
	if d.stateLine {
		for k, col := range d.stateCols {
			d.stateShift[k] = noStateField
			if col >= 0 {
				d.stateShift[k] = uint(8 * col)
			}
		}
		d.timeShift = uint(8 * d.column[roleTime])
	}
	return d.missing()
}

// hashKeys sets the hashes of the keyed fields among fields (the event id
// excluded).
func (d *eventDef) hashKeys(buf []byte, fields []span) {
	for _, c := range d.keyed {
		f := &fields[c]
		if n := f.to - f.from; n <= shortKey && int(f.from)+8 <= len(buf) {
			// One load, masked to the key's bytes: hashKey's word.
			x := binary.LittleEndian.Uint64(buf[f.from:]) & (1<<(8*n) - 1)
			f.hash = shortHash(x, int(n))
		} else {
			f.hash = hashKey(buf[f.from:f.to])
		}
	}
}

// pajengInvalid is the text pj_dump prints for an invalid definition.
func (d *eventDef) pajengInvalid(missing []role, line int, tokens []string) string {
	var b strings.Builder
	b.WriteString("This event definition is invalid:\n")
	b.WriteString("This is the event definition of the problematic event:\n")
	fmt.Fprintf(&b, "  %%EventDef %s %s\n", d.name, d.id)
	for i := range d.names {
		fmt.Fprintf(&b, "  %%    %s %s\n", d.names[i], d.types[i])
	}
	b.WriteString("  %EndEventDef\n")
	fmt.Fprintf(&b, "Obligatory fields expected for a %s event definition:\n", d.name)
	b.WriteString("Event ")
	for _, r := range required[d.kind] {
		b.WriteString(roleLabels[r])
		b.WriteByte(' ')
	}
	b.WriteByte('\n')
	fmt.Fprintf(&b, "When treating line (Line: %d, Fields: %d, Contents: '%s')\n", line, len(tokens), strings.Join(tokens, " "))
	return b.String()
}
