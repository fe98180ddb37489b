package trace

import (
	"iter"
	"math"
)

// LinkColumn holds a trace's links column-wise, in blocks of 32,768:
// start and end as int64 nanoseconds, container, type, value, source and
// destination as int32 ids, the size as a float64, and the key's bytes in
// an arena the block owns, found by an int32 offset and length. A link
// costs 52 bytes plus the length of its key, 0 when it has none (most
// formats); Link, the struct the readers hand over, takes 64 and its key
// one more allocation, which unique keys (Pajé's) all need. The column
// grows a block at a time and never copies itself to grow (see
// StateColumn); a block's arena grows as keys come.
//
// The zero value is an empty column ready to use; LinksOf builds one from
// a slice. At allocates the key it returns, when there is one.
type LinkColumn struct {
	column[Link, linkBlock, *linkBlock]
}

// LinkBlockBytes is the memory of one block of a LinkColumn, its key
// arena aside.
const LinkBlockBytes = blockLen * (8 + 8 + 8 + 5*4 + 4 + 4)

type linkBlock struct {
	start, end                      [blockLen]Time
	size                            [blockLen]float64
	container, typ, value, from, to [blockLen]int32
	// The key of link j is keys[keyOff[j]:keyOff[j]+keyLen[j]], or
	// far[j] when keyLen[j] is farKey: keys that would take the arena
	// past what an int32 offset reaches (2 GiB of keys in one block).
	keyOff, keyLen [blockLen]int32
	keys           []byte
	far            map[int]string
}

const farKey = -1

// maxArena is the most key bytes a block's arena holds (a variable so
// that tests can reach it).
var maxArena = math.MaxInt32

func (b *linkBlock) get(j int) Link {
	l := b.unkeyed(j)
	switch n := b.keyLen[j]; {
	case n == farKey:
		l.Key = b.far[j]
	case n > 0:
		off := b.keyOff[j]
		l.Key = string(b.keys[off : off+n])
	}
	return l
}

// unkeyed returns link j without its key.
func (b *linkBlock) unkeyed(j int) Link {
	return Link{Container: b.container[j], Type: b.typ[j], Value: b.value[j],
		Start: b.start[j], End: b.end[j], From: b.from[j], To: b.to[j], Size: b.size[j]}
}

// appendKey appends the key of link j to dst.
func (b *linkBlock) appendKey(dst []byte, j int) []byte {
	switch n := b.keyLen[j]; {
	case n == farKey:
		return append(dst, b.far[j]...)
	case n > 0:
		off := b.keyOff[j]
		return append(dst, b.keys[off:off+n]...)
	}
	return dst
}

func (b *linkBlock) put(j int, l Link) {
	b.container[j], b.typ[j], b.value[j], b.from[j], b.to[j] = l.Container, l.Type, l.Value, l.From, l.To
	b.start[j], b.end[j], b.size[j] = l.Start, l.End, l.Size
	old, n := b.keyLen[j], len(l.Key)
	if old == farKey {
		delete(b.far, j)
	}
	switch {
	case n == 0:
		b.keyOff[j], b.keyLen[j] = 0, 0
	case int(old) >= n: // a key replaced by one no longer: in place
		copy(b.keys[b.keyOff[j]:], l.Key)
		b.keyLen[j] = int32(n)
	case len(b.keys)+n <= maxArena:
		b.keyOff[j], b.keyLen[j] = int32(len(b.keys)), int32(n)
		b.keys = append(b.keys, l.Key...)
	default:
		if b.far == nil {
			b.far = map[int]string{}
		}
		b.keyOff[j], b.keyLen[j] = 0, farKey
		b.far[j] = l.Key
	}
}

func (b *linkBlock) bytes() int64 {
	n := int64(LinkBlockBytes + cap(b.keys))
	for _, k := range b.far {
		n += int64(len(k)) + 48
	}
	return n
}

// Append adds l after the last one.
func (c *LinkColumn) Append(l Link) {
	b, j := c.next()
	b.put(j, l)
}

// At returns the i-th link; it panics if i is out of range.
func (c *LinkColumn) At(i int) Link {
	checkIndex(i, c.n)
	return c.blocks[i>>blockBits].get(i & blockMask)
}

// Set replaces the i-th link; it panics if i is out of range.
func (c *LinkColumn) Set(i int, l Link) {
	checkIndex(i, c.n)
	c.blocks[i>>blockBits].put(i&blockMask, l)
}

// All yields the links in order, with their index.
func (c *LinkColumn) All() iter.Seq2[int, Link] {
	return func(yield func(int, Link) bool) {
		for i := 0; i < c.n; i++ {
			if !yield(i, c.blocks[i>>blockBits].get(i&blockMask)) {
				return
			}
		}
	}
}

// LinksOf returns a column holding links, in their order.
func LinksOf(links ...Link) LinkColumn {
	var c LinkColumn
	fill(&c, links)
	return c
}

// Unkeyed yields the links in order, with their index, but not their
// keys (Key is empty): reading the other fields of every link then
// allocates nothing. AppendKey gives a key when it is needed.
func (c *LinkColumn) Unkeyed() iter.Seq2[int, Link] {
	return func(yield func(int, Link) bool) {
		for i := 0; i < c.n; i++ {
			if !yield(i, c.blocks[i>>blockBits].unkeyed(i&blockMask)) {
				return
			}
		}
	}
}

// AtUnkeyed returns the i-th link without its key (Key is empty),
// allocating nothing; it panics if i is out of range.
func (c *LinkColumn) AtUnkeyed(i int) Link {
	checkIndex(i, c.n)
	return c.blocks[i>>blockBits].unkeyed(i & blockMask)
}

// AppendKey appends the key of the i-th link to dst and returns the
// extended slice, allocating nothing when dst has room; it panics if i
// is out of range.
func (c *LinkColumn) AppendKey(dst []byte, i int) []byte {
	checkIndex(i, c.n)
	return c.blocks[i>>blockBits].appendKey(dst, i&blockMask)
}
