package deltafifo

import "errors"

// errZero is the error of the methods of a zero DeltaFIFO (one not made by
// New) that return errors; its reads (Len, ListKeys, HasSynced, Idle) find
// it empty.
var errZero = errors.New("deltafifo: a zero DeltaFIFO cannot be used: create it with deltafifo.New")

// zero reports whether f was not made by New. keyFunc is set by New and
// never changes.
func (f *DeltaFIFO[T]) zero() bool { return f.keyFunc == nil }
