package trace

import "iter"

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

// Append adds v after the last one.
func (c *VariableColumn) Append(v Variable) {
	b, j := c.next()
	b.put(j, v)
}

// At returns the i-th variable; it panics if i is out of range.
func (c *VariableColumn) At(i int) Variable {
	checkIndex(i, c.n)
	return c.blocks[i>>blockBits].get(i & blockMask)
}

// Set replaces the i-th variable; it panics if i is out of range.
func (c *VariableColumn) Set(i int, v Variable) {
	checkIndex(i, c.n)
	c.blocks[i>>blockBits].put(i&blockMask, v)
}

// All yields the variables in order, with their index.
func (c *VariableColumn) All() iter.Seq2[int, Variable] {
	return func(yield func(int, Variable) bool) {
		for i := 0; i < c.n; i++ {
			if !yield(i, c.blocks[i>>blockBits].get(i&blockMask)) {
				return
			}
		}
	}
}

// VariablesOf returns a column holding variables, in their order.
func VariablesOf(variables ...Variable) VariableColumn {
	var c VariableColumn
	fill(&c, variables)
	return c
}
