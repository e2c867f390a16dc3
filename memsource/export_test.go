package memsource

import (
	"fmt"
	"slices"
)

// CheckInvariants verifies the source's internal structure: the history
// holds exactly one record per version from oldest+1 to version, no more
// than its size; every stored object carries its entry's version; and the
// sorted snapshot, brought up to date incrementally, equals one built from
// scratch.
func (s *Source[T]) CheckInvariants() error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := uint64(s.history.Len()); n != s.version-s.oldest {
		return fmt.Errorf("history holds %d records for versions %d..%d", n, s.oldest+1, s.version)
	}
	if s.history.Len() > s.historySize {
		return fmt.Errorf("history holds %d records, more than %d", s.history.Len(), s.historySize)
	}
	for i := range s.history.Len() {
		if got, want := s.history.At(i).version, s.codec.format(s.oldest+1+uint64(i)); got != want {
			return fmt.Errorf("history record %d has version %s, want %s", i, got, want)
		}
	}
	for k, e := range s.items {
		if got := e.obj.GetResourceVersion(); got != e.version {
			return fmt.Errorf("object %s carries version %s, its entry %s", k, got, e.version)
		}
	}
	got, want := s.currentLocked(), s.buildLocked()
	if !slices.Equal(got.keys, want.keys) || got.version != want.version {
		return fmt.Errorf("snapshot at %d has keys %q, want %q at %d", got.version, got.keys, want.keys, want.version)
	}
	for i := range got.items {
		if s.items[got.keys[i]].version != got.items[i].GetResourceVersion() {
			return fmt.Errorf("snapshot item %s is not the stored object", got.keys[i])
		}
	}
	return nil
}

// PagedSnapshots returns the number of older snapshots kept for continue
// tokens.
func (s *Source[T]) PagedSnapshots() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.paged)
}
