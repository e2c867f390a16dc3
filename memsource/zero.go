package memsource

import "errors"

// errZero is the error of the methods of a zero Source (one not made by
// New) that return errors; Get and Len find it empty.
var errZero = errors.New("memsource: a zero Source cannot be used: create it with memsource.New")

// zero reports whether s was not made by New. keyFunc is set by New and
// never changes.
func (s *Source[T]) zero() bool { return s.keyFunc == nil }
