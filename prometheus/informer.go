package prometheus

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/typedcache/typedcache/informer"
)

// informerCollector collects the metrics of every informer from its
// Stats.
type informerCollector struct {
	sources sources[func() informer.Stats]

	lists, watches, relists, watchErrors, resyncs, events *prometheus.Desc
	lastList, sinceEvent, cached, queued                  *prometheus.Desc
	indexFailures, unindexed                              *prometheus.Desc
	pending, delivered, blocked, coalesced, panics        *prometheus.Desc
}

func newInformerCollector() *informerCollector {
	desc := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, append([]string{"name"}, labels...), nil)
	}
	return &informerCollector{
		lists:         desc("reflector_lists_total", "Total number of API lists done by the reflectors"),
		watches:       desc("reflector_watches_total", "Total number of API watches done by the reflectors, the watch of each streaming list included"),
		relists:       desc("reflector_relists_total", "Total number of relists by reason: expired (the resource version expired) or error (a list or the store failed).", "reason"),
		watchErrors:   desc("reflector_watch_errors_total", "Total number of watches that failed to start or ended with an error, expiries included."),
		resyncs:       desc("reflector_resyncs_total", "Total number of periodic resyncs of the informer's cache."),
		events:        desc("reflector_watch_events_total", "Total number of watch events received, by type.", "type"),
		lastList:      desc("reflector_last_successful_list_timestamp_seconds", "Unix time of the last successful list."),
		sinceEvent:    desc("reflector_time_since_last_watch_event_seconds", "Seconds since the last watch event, bookmarks included, to within a scrape interval."),
		cached:        desc("informer_cached_objects", "Number of objects in the informer's cache."),
		queued:        desc("informer_queued_items", "Number of items currently queued in the FIFO."),
		indexFailures: desc("informer_index_failures_total", "Total number of index function failures on cached objects, which are cached nonetheless."),
		unindexed:     desc("informer_unindexed_objects", "Number of cached objects missing from an index whose function failed on them."),
		pending:       desc("informer_handler_pending_notifications", "Number of notifications received by the handler and not yet handled.", "handler"),
		delivered:     desc("informer_handler_notifications_total", "Total number of notifications the handler handled.", "handler"),
		blocked:       desc("informer_handler_blocked_pushes_total", "Total number of times the informer waited for room in the handler's full buffer.", "handler"),
		coalesced:     desc("informer_handler_coalesced_notifications_total", "Total number of notifications merged into a pending one by the handler's full buffer.", "handler"),
		panics:        desc("informer_handler_panics_total", "Total number of handler calls that panicked.", "handler"),
	}
}

// Informer exports the metrics of the informer called name, read from
// stats each time Prometheus collects them: it is an
// informer.Options.Metrics and an informer.FactoryOptions.Metrics.
func (p *Provider) Informer(name string, stats func() informer.Stats) {
	p.informers.sources.set(name, stats)
}

// Describe implements prometheus.Collector.
func (c *informerCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{
		c.lists, c.watches, c.relists, c.watchErrors, c.resyncs, c.events,
		c.lastList, c.sinceEvent, c.cached, c.queued, c.indexFailures, c.unindexed,
		c.pending, c.delivered, c.blocked, c.coalesced, c.panics,
	} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *informerCollector) Collect(ch chan<- prometheus.Metric) {
	c.sources.all(func(name string, stats func() informer.Stats) {
		s := stats()
		counter := func(d *prometheus.Desc, v uint64, labels ...string) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), append([]string{name}, labels...)...)
		}
		gauge := func(d *prometheus.Desc, v float64, labels ...string) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, append([]string{name}, labels...)...)
		}
		r := s.Reflector
		counter(c.lists, r.Lists)
		counter(c.watches, r.Watches)
		counter(c.relists, r.Relists.Expired, "expired")
		counter(c.relists, r.Relists.Failed, "error")
		counter(c.watchErrors, r.WatchErrors)
		counter(c.resyncs, r.Resyncs)
		counter(c.events, r.Events.Added, "added")
		counter(c.events, r.Events.Updated, "updated")
		counter(c.events, r.Events.Deleted, "deleted")
		counter(c.events, r.Events.Bookmarks, "bookmark")
		if !r.LastList.IsZero() {
			gauge(c.lastList, float64(r.LastList.UnixNano())/1e9)
		}
		if !r.LastEvent.IsZero() {
			gauge(c.sinceEvent, time.Since(r.LastEvent).Seconds())
		}
		gauge(c.cached, float64(s.Cached))
		gauge(c.queued, float64(s.Queued))
		counter(c.indexFailures, s.IndexFailures)
		gauge(c.unindexed, float64(s.Unindexed))
		for _, h := range sumByName(s.Handlers) {
			counter(c.delivered, h.Delivered, h.Name)
			counter(c.blocked, h.BlockedPushes, h.Name)
			counter(c.coalesced, h.Coalesced, h.Name)
			counter(c.panics, h.Panics, h.Name)
			gauge(c.pending, float64(h.Pending), h.Name)
		}
	})
}

// sumByName adds together the stats of handlers that share a name, which
// would otherwise make the collection fail, keeping the first one's place.
func sumByName(hs []informer.NamedHandlerStats) []informer.NamedHandlerStats {
	out := hs[:0:0]
	at := make(map[string]int, len(hs))
	for _, h := range hs {
		i, ok := at[h.Name]
		if !ok {
			at[h.Name] = len(out)
			out = append(out, h)
			continue
		}
		o := &out[i]
		o.Pending += h.Pending
		o.Delivered += h.Delivered
		o.Panics += h.Panics
		o.Coalesced += h.Coalesced
		o.BlockedPushes += h.BlockedPushes
	}
	return out
}
