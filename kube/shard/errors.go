package shard

import "errors"

// ErrInvalid is wrapped by every error New, NewWork, Gate and Run return for an
// argument they reject.
var ErrInvalid = errors.New("shard: invalid configuration")

// ErrFenced is the cause of the end of a work context when this member
// stopped being a live member: it did not renew its Lease within the
// renew deadline, or found it deleted by the others.
var ErrFenced = errors.New("shard: no longer a live member")

// ErrRunning is returned by Run when another call to Run of the same Shard
// has not returned yet.
var ErrRunning = errors.New("shard: Run is already running")
