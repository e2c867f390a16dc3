package deltafifo

import (
	"fmt"
	"reflect"

	"github.com/typedcache/typedcache/internal/objkey"
	"github.com/typedcache/typedcache/keys"
)

// stackKeys reports whether a FIFO keyed by keyFunc builds its keys on the
// stack (see recordObject): keyFunc is keys.Of, and T is a pointer, so that
// reading the object's name through keys.Object boxes nothing.
func stackKeys[T any](keyFunc keys.Func[T]) bool {
	return reflect.TypeFor[T]().Kind() == reflect.Pointer && objkey.IsKeysOf(keyFunc)
}

// recordObject is record for a FIFO keyed by keys.Of. It builds obj's key
// on the stack and makes a string of it only for a key that has no slot:
// a delta for a key with deltas queued, in flight or parked, or with an
// idle slot, takes the slot's key string and allocates nothing. Errors are
// those keys.Of would have caused.
func (f *DeltaFIFO[T]) recordObject(t DeltaType, obj T) error {
	o, ok := any(obj).(keys.Object)
	if !ok { // unreachable: keys.Of[T] compiles only for T that are keys.Objects
		return f.recordKeyed(t, obj)
	}
	name := o.GetName()
	if name == "" {
		return fmt.Errorf("deltafifo: computing key: %w", keys.ErrEmptyName)
	}
	var buf [objkey.MaxStack]byte
	kb := objkey.Append(buf[:0], o.GetNamespace(), name)
	h := f.index.hashBytes(kb)
	if f.transform != nil {
		var err error
		if obj, err = f.transform(obj); err != nil {
			return fmt.Errorf("deltafifo: transforming %q: %w", string(kb), err)
		}
	}
	d := Delta[T]{Type: t, Object: obj}
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return ErrClosed
	}
	f.populated = true
	i, found, pos := get(&f.index, &f.slots, kb, h)
	var key string
	if found {
		key = f.slots.at(i).key
	} else {
		key = string(kb)
	}
	// A delta for a key without deltas in the FIFO (none, or an idle slot)
	// that is unknown to the consumer is a deletion of nothing: dropped.
	pending := found && (f.slots.idle == 0 || f.slots.at(i).state != slotIdle)
	if t != Deleted || pending || f.knownLocked(key) {
		f.addFoundLocked(key, h, i, found, pos, d)
	}
	f.mu.Unlock()
	return nil
}
