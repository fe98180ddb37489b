package trace

// VariableColumn holds a trace's variable pieces column-wise, in blocks
// of 32,768: start and end as int64 nanoseconds, container and type as
// int32 ids, the value as a float64. A piece costs 32 bytes, as Variable
// does, but the column grows a block at a time and never copies itself
// to grow (see StateColumn).
//
// The zero value is an empty column ready to use; VariablesOf builds one
// from a slice.
type VariableColumn struct {
	column[Variable, variableBlock, *variableBlock]
}

// VariableBlockBytes is the memory of one block of a VariableColumn.
const VariableBlockBytes = blockLen * (8 + 8 + 4 + 4 + 8)

type variableBlock struct {
	start, end     [blockLen]Time
	value          [blockLen]float64
	container, typ [blockLen]int32
}

func (b *variableBlock) get(j int) Variable {
	return Variable{Container: b.container[j], Type: b.typ[j], Start: b.start[j], End: b.end[j], Value: b.value[j]}
}

func (b *variableBlock) put(j int, v Variable) {
	b.container[j], b.typ[j] = v.Container, v.Type
	b.start[j], b.end[j], b.value[j] = v.Start, v.End, v.Value
}

func (b *variableBlock) bytes() int64 { return VariableBlockBytes }

// VariablesOf returns a column holding variables, in their order.
func VariablesOf(variables ...Variable) VariableColumn {
	var c VariableColumn
	c.Grow(len(variables))
	for _, v := range variables {
		c.Append(v)
	}
	return c
}
