package reflector

import "errors"

// errZero is the error of Run on a zero Reflector (one not made by New).
var errZero = errors.New("reflector: a zero Reflector cannot be used: create it with reflector.New")
