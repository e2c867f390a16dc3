package prometheus_test

import (
	"log/slog"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/prometheus"
	"github.com/typedcache/typedcache/queue"
)

// The Provider's methods have the types of the options they are passed to.
var (
	_ queue.MetricsProvider      = (*prometheus.Provider)(nil).Queue
	_ informer.MetricsProvider   = (*prometheus.Provider)(nil).Informer
	_ controller.MetricsProvider = (*prometheus.Provider)(nil).Controller
)

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
