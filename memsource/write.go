package memsource

import (
	"errors"
	"fmt"

	"github.com/typedcache/typedcache/reflector"
)

// Errors of the write methods, wrapped with the object's key. Match them
// with errors.Is.
var (
	// ErrAlreadyExists reports a Create of a key that is already stored.
	ErrAlreadyExists = errors.New("memsource: object already exists")
	// ErrNotFound reports an Update or Delete of a key that is not stored.
	ErrNotFound = errors.New("memsource: object not found")
	// ErrConflict reports an Update whose object carries a resource version
	// other than the stored one: it was computed from a stale read.
	ErrConflict = errors.New("memsource: resource version conflict")
)

// Create stores obj, whose key must not be stored yet, as a new version
// and returns the stored object with its resource version set. Any version
// obj carries is ignored. Watchers see an Added event.
//
// When the source copies (see Options.Clone), it stores and stamps a copy
// and obj is left as it was; otherwise obj itself is stored and stamped:
// the caller hands it over and must not change it afterwards.
func (s *Source[T]) Create(obj T) (T, error) {
	obj, key, _, err := s.in(obj)
	if err == nil {
		obj, err = s.commit(reflector.Added, key, obj, "")
	}
	if err != nil {
		var zero T
		return zero, err
	}
	s.stats.creates.Add(1)
	return s.out(obj), nil
}

// Update replaces the stored object with obj's key by obj, as a new
// version, and returns the stored object with its resource version set.
// Watchers see a Updated event.
//
// Like the API server, Update is an optimistic write: if obj carries a
// resource version, it must be the stored object's, or Update fails with
// ErrConflict and changes nothing. An empty version overwrites
// unconditionally. Ownership is as for Create.
func (s *Source[T]) Update(obj T) (T, error) {
	obj, key, given, err := s.in(obj)
	if err == nil {
		obj, err = s.commit(reflector.Updated, key, obj, given)
	}
	if err != nil {
		var zero T
		return zero, err
	}
	s.stats.updates.Add(1)
	return s.out(obj), nil
}

// Delete removes the object stored under key, as a new version, and
// returns its last state, which keeps the version of its last write; the
// Deleted event carries the deletion's version. Like a DELETE without
// preconditions, it does not check versions.
func (s *Source[T]) Delete(key string) (T, error) {
	var zero T
	if s.zero() {
		return zero, errZero
	}
	obj, err := s.commit(reflector.Deleted, key, zero, "")
	if err != nil {
		return zero, err
	}
	s.stats.deletes.Add(1)
	return s.out(obj), nil
}

// DeleteObject is Delete of obj's key, for callers that hold the object
// rather than its key, as Create and Update take objects. Only the key
// matters: obj's version and content are not checked (a DELETE without
// preconditions). A nil obj is an error, as it is for Create and Update.
func (s *Source[T]) DeleteObject(obj T) (T, error) {
	key, _, err := inspect(s.keyFunc, obj)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("memsource: object key: %w", err)
	}
	return s.Delete(key)
}

// in prepares an object handed to a write: it returns the source's own
// copy when it clones, the key, and the version the object carries.
func (s *Source[T]) in(obj T) (T, string, string, error) {
	if s.zero() {
		var zero T
		return zero, "", "", errZero
	}
	key, version, err := inspect(s.keyFunc, obj)
	if err != nil {
		var zero T
		return zero, "", "", fmt.Errorf("memsource: object key: %w", err)
	}
	if s.clone != nil {
		obj = s.clone(obj)
	}
	return obj, key, version, nil
}

// commit performs one write of type typ at the next version and returns
// the stored object (for Deleted, the removed one). given is the version an
// Update is based on. The write is checked, obj stamped (unless the write
// is a deletion) with only writeMu held, then published to readers and
// watchers under mu.
func (s *Source[T]) commit(typ reflector.EventType, key string, obj T, given string) (T, error) {
	var zero T
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	old, ok := s.items[key]
	switch {
	case typ == reflector.Added && ok:
		return zero, fmt.Errorf("%w: %s", ErrAlreadyExists, key)
	case typ != reflector.Added && !ok:
		return zero, fmt.Errorf("%w: %s", ErrNotFound, key)
	case typ == reflector.Updated && given != "" && given != old.version:
		return zero, fmt.Errorf("%w: %s is at version %s, the update is based on %s",
			ErrConflict, key, old.version, given)
	}
	version := s.codec.format(s.version + 1)
	rec := record[T]{typ: typ, key: key, obj: obj, version: version}
	switch typ {
	case reflector.Updated:
		rec.prev = old.obj
	case reflector.Deleted:
		rec.obj = old.obj
	}
	if typ != reflector.Deleted {
		obj.SetResourceVersion(version)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.version++
	if typ == reflector.Deleted {
		delete(s.items, key)
	} else {
		s.items[key] = entry[T]{obj: obj, version: version}
	}
	s.history.Push(rec)
	for s.history.Len() > s.historySize {
		s.history.Pop()
		s.oldest++
	}
	s.noteChangedLocked(key, obj, typ != reflector.Deleted)
	if s.wake != nil {
		close(s.wake)
		s.wake = nil
	}
	return rec.obj, nil
}
