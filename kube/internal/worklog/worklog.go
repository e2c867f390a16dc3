// Package worklog records which replica processed which key and when, and
// reports any key processed by two replicas at once: the checker of the
// tests of kube/shard, in synctest bubbles and against a real server.
package worklog

import (
	"fmt"
	"slices"
	"sync"
	"time"
)

// Span is one processing of a key by a replica, from the call of its
// reconcile function to its return, on the clock of the process that
// runs all the replicas.
type Span struct {
	Replica, Key string
	Start, End   time.Time
}

// Log is the record of all processing. Its methods are safe for
// simultaneous use by multiple goroutines.
type Log struct {
	onEnd func()

	mu       sync.Mutex
	running  map[string]string // key → replica processing it now
	spans    []Span
	overlaps []string
}

// New returns an empty Log that calls onEnd (if not nil) after each End.
func New(onEnd func()) *Log {
	return &Log{onEnd: onEnd, running: map[string]string{}}
}

// Begin records that replica starts processing key, and an overlap if
// another replica is processing it. Pass its result to End.
func (l *Log) Begin(replica, key string) Span {
	l.mu.Lock()
	defer l.mu.Unlock()
	if other, ok := l.running[key]; ok {
		l.overlaps = append(l.overlaps, fmt.Sprintf("%s started %s at %s while %s processed it",
			replica, key, time.Now().Format(time.StampMicro), other))
	}
	l.running[key] = replica
	return Span{Replica: replica, Key: key, Start: time.Now()}
}

// End records the end of s.
func (l *Log) End(s Span) {
	l.mu.Lock()
	s.End = time.Now()
	delete(l.running, s.Key)
	l.spans = append(l.spans, s)
	l.mu.Unlock()
	if l.onEnd != nil {
		l.onEnd()
	}
}

// Overlaps describes every start of a key while another replica
// processed it.
func (l *Log) Overlaps() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.overlaps)
}

// Spans returns the ended processings, in the order they ended.
func (l *Log) Spans() []Span {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.spans)
}

// FirstStarts returns, for each of keys some replica accepted by by
// started after after, the earliest such start.
func (l *Log) FirstStarts(keys []string, by func(replica string) bool, after time.Time) map[string]time.Time {
	want := make(map[string]bool, len(keys))
	for _, k := range keys {
		want[k] = true
	}
	first := map[string]time.Time{}
	for _, s := range l.Spans() {
		if by(s.Replica) && want[s.Key] && s.Start.After(after) {
			if t, ok := first[s.Key]; !ok || s.Start.Before(t) {
				first[s.Key] = s.Start
			}
		}
	}
	return first
}

// LastBy returns the keys whose last ended processing was by replica,
// sorted.
func (l *Log) LastBy(replica string) []string {
	last := map[string]string{}
	for _, s := range l.Spans() {
		last[s.Key] = s.Replica
	}
	var out []string
	for k, r := range last {
		if r == replica {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// Waits returns the times in starts minus from, sorted.
func Waits(starts map[string]time.Time, from time.Time) []time.Duration {
	out := make([]time.Duration, 0, len(starts))
	for _, t := range starts {
		out = append(out, t.Sub(from))
	}
	slices.Sort(out)
	return out
}
