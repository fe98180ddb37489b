package paje

import (
	"fmt"
	"strings"
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
}

// role is the meaning of a field for the simulator.
type role uint8

const (
	roleNone role = iota // a user field: kept out of the model
	roleTime
	roleName
	roleAlias
	roleType
	roleContainer
	roleStartContainerType
	roleEndContainerType
	roleStartContainer
	roleEndContainer
	roleValue
	roleKey
	roleColor
	numRoles
)

var roleNames = map[string]role{
	"Time":               roleTime,
	"Name":               roleName,
	"Alias":              roleAlias,
	"Type":               roleType,
	"Container":          roleContainer,
	"StartContainerType": roleStartContainerType,
	"EndContainerType":   roleEndContainerType,
	"StartContainer":     roleStartContainer,
	"EndContainer":       roleEndContainer,
	"Value":              roleValue,
	"Key":                roleKey,
	"Color":              roleColor,
	// Names of the original Pajé dialect, still found in old traces.
	"ContainerType":       roleType,
	"EntityType":          roleType,
	"SourceContainer":     roleStartContainer,
	"DestContainer":       roleEndContainer,
	"SourceContainerType": roleStartContainerType,
	"DestContainerType":   roleEndContainerType,
}

var roleLabels = [numRoles]string{"", "Time", "Name", "Alias", "Type", "Container",
	"StartContainerType", "EndContainerType", "StartContainer", "EndContainer", "Value", "Key", "Color"}

// required lists the fields each event kind cannot do without.
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
}

var fieldTypes = map[string]bool{"date": true, "int": true, "double": true, "float": true, "hex": true, "string": true, "color": true}

// eventDef is a parsed %EventDef block.
type eventDef struct {
	name   string
	kind   eventKind
	line   int      // where the definition starts
	roles  []role   // role of each field, in file order
	types  []string // declared type of each field
	column [numRoles]int
}

func newEventDef(name string, line int) (*eventDef, error) {
	kind, ok := eventNames[name]
	if !ok {
		return nil, fmt.Errorf("unknown event %q in %%EventDef", name)
	}
	d := &eventDef{name: name, kind: kind, line: line}
	for i := range d.column {
		d.column[i] = -1
	}
	return d, nil
}

func (d *eventDef) addField(name, typ string) error {
	if !fieldTypes[typ] {
		return fmt.Errorf("field %s of %s has unknown type %q", name, d.name, typ)
	}
	r := roleNames[name]
	if r != roleNone {
		if d.column[r] >= 0 {
			return fmt.Errorf("field %s appears twice in %s", name, d.name)
		}
		d.column[r] = len(d.roles)
	}
	d.roles = append(d.roles, r)
	d.types = append(d.types, typ)
	return nil
}

func (d *eventDef) finish() error {
	if d.kind == evDestroyContainer && d.column[roleName] < 0 {
		// Old SimGrid traces name the destroyed container in a Container field.
		d.column[roleName] = d.column[roleContainer]
	}
	var missing []string
	for _, r := range required[d.kind] {
		if d.column[r] < 0 {
			missing = append(missing, roleLabels[r])
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("definition of %s (line %d) lacks the field(s) %s", d.name, d.line, strings.Join(missing, ", "))
	}
	return nil
}
