package shard

import "fmt"

func Debug(s *Shard) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := "nil"
	if s.snap != nil {
		snap = fmt.Sprint(s.snap.acked, s.snap.acks)
	}
	n := 0
	for _, w := range s.works {
		ww := w.(*Work[string])
		ww.mu.Lock()
		n += len(ww.parked)
		ww.mu.Unlock()
	}
	return fmt.Sprint("term ", s.term != nil, " terms ", s.terms, " adopted ", s.adopted, " acked ", s.acked, " target ", s.target, " snap ", snap, " inflight ", s.inflight, " parked ", n)
}
