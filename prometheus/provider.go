package prometheus

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// Provider creates the metrics of queues, informers and controllers and
// exports them through the collectors New registered. It is safe for simultaneous use
// by multiple goroutines.
type Provider struct {
	queues      *queueMetrics
	informers   *informerCollector
	controllers *controllerCollector
}

// New returns a Provider whose metrics are registered on reg. It fails
// as reg.Register does, for example when another Provider was registered
// on reg already.
func New(reg prometheus.Registerer) (*Provider, error) {
	p := &Provider{queues: newQueueMetrics(), informers: newInformerCollector(), controllers: newControllerCollector()}
	for _, c := range append(p.queues.collectors(), p.informers, p.controllers) {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// sources holds the latest source of gauges registered under each name.
type sources[F any] struct {
	mu     sync.Mutex
	byName map[string]F
}

// set makes f the source of name's gauges.
func (s *sources[F]) set(name string, f F) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byName == nil {
		s.byName = make(map[string]F)
	}
	s.byName[name] = f
}

// all calls yield for every name and source, without the lock held.
func (s *sources[F]) all(yield func(name string, f F)) {
	s.mu.Lock()
	names := make([]string, 0, len(s.byName))
	fs := make([]F, 0, len(s.byName))
	for n, f := range s.byName {
		names, fs = append(names, n), append(fs, f)
	}
	s.mu.Unlock()
	for i, n := range names {
		yield(n, fs[i])
	}
}
