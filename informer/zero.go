package informer

import "errors"

// errZero is the error of the methods of a zero Informer (one not made by
// a constructor) that return errors; its reads (HasSynced, Lister, Cache,
// Stats) find it empty.
var errZero = errors.New("informer: a zero Informer cannot be used: create it with informer.New, informer.NewProjected or informer.For")

// errZeroRegistration is the error of WaitForSync on a zero Registration.
var errZeroRegistration = errors.New("informer: a zero Registration is the handle of no handler: use the one AddEventHandler returns")

// closedCh is a closed channel: the Done channel of a zero Registration.
var closedCh = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// zero reports whether inf was not made by a constructor. stoppedCh is set
// by them and never changes.
func (inf *Informer[T]) zero() bool { return inf.stoppedCh == nil }
