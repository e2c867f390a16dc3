package indexer

import (
	"hash/maphash"
	"sync/atomic"
)

// positions maps keys to entry positions with open addressing and linear
// probing. It stores no keys: a slot holds 32 bits of the key's hash and
// the position plus one, and the key itself is read from the entry. That is
// 8 bytes per slot where a map[string]int32 needs 24, which keeps the
// Indexer's memory per object below client-go's.
//
// A zero slot is empty; the position part of a used slot is never zero.
// Deletion shifts the following run back (no tombstones), so lookups stay
// short after any number of deletes.
//
// Lister.Get probes the slots without the lock: it loads the slot array
// from shared and each slot atomically, and writers store slots
// atomically (see atomic.go).
type positions struct {
	slots  []uint64 // len is zero or a power of two
	shared atomic.Pointer[[]uint64]
	n      int
}

// minSlots is the size of the first slot array.
const minSlots = 16

// init makes p empty, with room for size keys.
func (p *positions) init(size int) {
	p.slots = nil
	if size > 0 {
		p.slots = make([]uint64, slotsFor(size))
	}
	p.publish()
}

// publish makes the current slot array the one lock-free readers probe.
func (p *positions) publish() {
	s := p.slots
	p.shared.Store(&s)
}

// slotsFor returns the slot count that holds n keys below the maximum load
// of 13/16.
func slotsFor(n int) int {
	c := minSlots
	for c*13/16 < n {
		c *= 2
	}
	return c
}

// hash returns the hash of key that positions works with. Callers compute
// it once per operation, before taking the lock.
func hash(seed maphash.Seed, key string) uint32 {
	return uint32(maphash.String(seed, key))
}

func hashBytes(seed maphash.Seed, key []byte) uint32 {
	return uint32(maphash.Bytes(seed, key))
}

func slot(h uint32, pos int) uint64 { return uint64(h)<<32 | uint64(pos+1) }

func slotPos(s uint64) int { return int(uint32(s)) - 1 }

func slotHash(s uint64) uint32 { return uint32(s >> 32) }

// insert adds a key with hash h, known to be absent, at position pos.
func (p *positions) insert(h uint32, pos int) {
	if (p.n+1)*16 > len(p.slots)*13 {
		p.grow()
	}
	mask := len(p.slots) - 1
	i := int(h) & mask
	for p.slots[i] != 0 {
		i = (i + 1) & mask
	}
	atomic.StoreUint64(&p.slots[i], slot(h, pos))
	p.n++
}

// move records that the key in slot i now lives at position pos.
func (p *positions) move(i, pos int) {
	atomic.StoreUint64(&p.slots[i], slot(slotHash(p.slots[i]), pos))
}

// removeSlot empties slot i, shifting back the entries after it whose probe
// sequence passes through it.
func (p *positions) removeSlot(i int) {
	mask := len(p.slots) - 1
	for j := (i + 1) & mask; p.slots[j] != 0; j = (j + 1) & mask {
		home := int(slotHash(p.slots[j])) & mask
		// The entry at j may fill the hole at i unless its home lies
		// cyclically in (i, j].
		if (j-home)&mask >= (j-i)&mask {
			atomic.StoreUint64(&p.slots[i], p.slots[j])
			i = j
		}
	}
	atomic.StoreUint64(&p.slots[i], 0)
	p.n--
}

// grow doubles the slot array (or allocates the first one).
func (p *positions) grow() {
	old := p.slots
	p.slots = make([]uint64, max(minSlots, 2*len(old)))
	mask := len(p.slots) - 1
	for _, s := range old {
		if s == 0 {
			continue
		}
		i := int(slotHash(s)) & mask
		for p.slots[i] != 0 {
			i = (i + 1) & mask
		}
		p.slots[i] = s // not yet published
	}
	p.publish()
}
