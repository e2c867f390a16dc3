package indexer

// bucket is the set of entries that have one value of one index, named by
// their positions in the table. A bucket is never empty: the index deletes
// it when its last entry leaves. A bucket of one entry, the common case for
// label and owner indexes, holds it inline and allocates no set.
type bucket struct {
	value string
	// one is the only entry when many is nil.
	one int32
	// many holds the entries when there are two or more.
	many *posSet
}

// len returns the number of entries in b.
func (b *bucket) len() int {
	if b.many == nil {
		return 1
	}
	return b.many.n
}

// members yields each entry of b, in no particular order. It is an
// iter.Seq[int32].
func (b *bucket) members(yield func(p int32) bool) {
	if b.many == nil {
		yield(b.one)
		return
	}
	for _, s := range b.many.slots {
		if s != 0 && !yield(int32(s-1)) {
			return
		}
	}
}

// add adds entry p to b.
func (b *bucket) add(p int32) {
	if b.many == nil {
		if b.one == p {
			return
		}
		b.many = &posSet{slots: make([]uint32, minSetSlots)}
		b.many.add(b.one)
	}
	b.many.add(p)
}

// remove removes entry p, which b holds, and reports whether b is now
// empty.
func (b *bucket) remove(p int32) (empty bool) {
	if b.many == nil {
		return true
	}
	b.many.remove(p)
	if b.many.n == 1 {
		for q := range b.members {
			b.one = q
		}
		b.many = nil
	}
	return false
}

// move records that entry from, which b holds, is now entry to.
func (b *bucket) move(from, to int32) {
	if b.many == nil {
		b.one = to
		return
	}
	b.many.remove(from)
	b.many.add(to)
}

// posSet is a set of entry positions: an open-addressing hash table with
// linear probing, whose slots hold position plus one (zero is empty).
// Deletion shifts the following run back instead of leaving tombstones, so
// probes stay short however the set churns, and the table shrinks when it
// falls below an eighth full. A position costs 5 to 10 bytes, where a
// map[int32]struct{} costs about as much and a client-go set of key strings
// about 25.
type posSet struct {
	slots []uint32 // len is a power of two, at least minSetSlots
	n     int
}

// minSetSlots is the size of the smallest posSet table.
const minSetSlots = 4

// home returns the first slot to probe for p, scattering consecutive
// positions (Fibonacci hashing).
func (s *posSet) home(p int32) int {
	h := uint32(p) * 0x9E3779B9
	return int(h^h>>16) & (len(s.slots) - 1)
}

// add adds p, doing nothing if it is present.
func (s *posSet) add(p int32) {
	mask := len(s.slots) - 1
	i := s.home(p)
	for ; s.slots[i] != 0; i = (i + 1) & mask {
		if s.slots[i] == uint32(p)+1 {
			return
		}
	}
	if (s.n+1)*16 > len(s.slots)*13 {
		s.resize(2 * len(s.slots))
		mask = len(s.slots) - 1
		for i = s.home(p); s.slots[i] != 0; i = (i + 1) & mask {
		}
	}
	s.slots[i] = uint32(p) + 1
	s.n++
}

// remove removes p, which s holds.
func (s *posSet) remove(p int32) {
	mask := len(s.slots) - 1
	i := s.home(p)
	for s.slots[i] != uint32(p)+1 {
		i = (i + 1) & mask
	}
	for j := (i + 1) & mask; s.slots[j] != 0; j = (j + 1) & mask {
		home := s.home(int32(s.slots[j] - 1))
		// The position at j may fill the hole at i unless its home lies
		// cyclically in (i, j].
		if (j-home)&mask >= (j-i)&mask {
			s.slots[i] = s.slots[j]
			i = j
		}
	}
	s.slots[i] = 0
	s.n--
	if len(s.slots) > minSetSlots && s.n*8 < len(s.slots) {
		s.resize(len(s.slots) / 2)
	}
}

// resize moves the positions into a table of size slots.
func (s *posSet) resize(size int) {
	old := s.slots
	s.slots = make([]uint32, size)
	mask := size - 1
	for _, v := range old {
		if v == 0 {
			continue
		}
		i := s.home(int32(v - 1))
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = v
	}
}
