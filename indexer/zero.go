package indexer

import "errors"

// A zero Indexer (one not made by New) has no key function, so it cannot
// store anything: it reads as an empty Indexer with no indexes, and every
// method that returns an error returns errZero. Reads that return no error
// (GetByKey, Len, List, ListKeys, All, Keys, and the Lister's reads) find
// nothing. Lister.Get checks for it only on its slow path: a zero
// Indexer's lockFree is false.

// errZero is the error of the methods of a zero Indexer.
var errZero = errors.New("indexer: a zero Indexer cannot be used: create it with indexer.New")

// zero reports whether x was not made by New. keyFunc is set by New and
// never changes, so it is read without the lock.
func (x *Indexer[T]) zero() bool {
	return x.keyFunc == nil
}
