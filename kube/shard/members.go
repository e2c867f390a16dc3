package shard

import (
	"slices"
	"strings"
)

// members is a set of member identities, sorted and without duplicates, as
// a Lease's ack annotation carries it. The empty set owns no key.
type members []string

// parseMembers decodes an ack annotation: identities separated by commas.
func parseMembers(s string) members {
	if s == "" {
		return nil
	}
	m := strings.Split(s, ",")
	slices.Sort(m)
	return slices.Compact(m)
}

// with returns m with id added.
func (m members) with(id string) members {
	i, found := slices.BinarySearch(m, id)
	if found {
		return m
	}
	return slices.Insert(slices.Clone(m), i, id)
}

// String encodes m for the ack annotation.
func (m members) String() string { return strings.Join(m, ",") }

// owner returns the member that owns key under m by rendezvous (highest
// random weight) hashing: the one whose weight for key is highest, ties
// broken by the larger identity. It returns "" for the empty set. Adding
// a member moves to it only keys it then owns; removing one moves only
// the keys it owned.
func (m members) owner(key string) string {
	hk := fnv(key)
	best, bestW := "", uint64(0)
	for _, id := range m {
		w := mix(hk ^ mix(fnv(id)))
		if best == "" || w > bestW || (w == bestW && id > best) {
			best, bestW = id, w
		}
	}
	return best
}

// fnv is the 64-bit FNV-1a hash of s.
func fnv(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := range len(s) {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// mix is the finalizer of SplitMix64: it spreads every input bit over the
// whole word, so that the weights of two members for a key are
// independent.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
