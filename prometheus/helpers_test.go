package prometheus_test

import (
	"log/slog"

	"github.com/typedcache/typedcache/prometheus"
	"github.com/typedcache/typedcache/queue"
)

// Provider.Queue is a queue.MetricsProvider.
var _ queue.MetricsProvider = (*prometheus.Provider)(nil).Queue

// object is the object type of the tests.
type object struct {
	Name, RV string
	Value    int
}

func (o *object) GetNamespace() string         { return "" }
func (o *object) GetName() string              { return o.Name }
func (o *object) GetResourceVersion() string   { return o.RV }
func (o *object) SetResourceVersion(rv string) { o.RV = rv }
func (o *object) DeepCopy() *object            { c := *o; return &c }

// discard is a logger that drops every record: the handler panic the
// tests cause is expected.
var discard = slog.New(slog.DiscardHandler)
