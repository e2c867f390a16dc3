package informer_test

import (
	"context"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/typedcache/typedcache/bench/internal/fixture"
	"github.com/typedcache/typedcache/bench/internal/measure"
)

// BenchmarkInformerSync measures Run until one handler has been told about
// every object of the initial list, the moment its registration has
// synced. The source's answer is built before the timer runs; stopping the
// informer is not timed. It also reports the heap the running informer
// retains per cached object after a collection (heap-B/object), objects
// included: they come from the source and the informer is their only
// holder.
//
// ConfigMaps are synced at 10k, 100k and 1M objects, on the Kubernetes
// path (the 1M size only there) and on the direct path (see paths), and
// Pods (kind=pod, a few kilobytes each) at 10k and 100k on the Kubernetes
// path, so that the cost per object can be compared across sizes and
// object shapes.
func BenchmarkInformerSync(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"10k", 10_000}, {"100k", 100_000}} {
		n := measure.Size(size.n)
		b.Run("objects="+size.name, func(b *testing.B) {
			paths(b, func(b *testing.B, start starter[*corev1.ConfigMap]) { informerSync(b, start, n) })
		})
	}
	b.Run("objects=1M", func(b *testing.B) {
		n := measure.Size(1_000_000)
		kubePath(b, configMaps, func(b *testing.B, start starter[*corev1.ConfigMap]) { informerSync(b, start, n) })
	})
	for _, size := range []struct {
		name string
		n    int
	}{{"10k", 10_000}, {"100k", 100_000}} {
		n := measure.Size(size.n)
		b.Run("objects="+size.name+",kind=pod", func(b *testing.B) {
			kubePath(b, pods, func(b *testing.B, start starter[*corev1.Pod]) { informerSync(b, start, n) })
		})
	}
}

// informerSync is one run of BenchmarkInformerSync over n objects.
func informerSync[T any](b *testing.B, start starter[T], n int) {
	m := measure.PerItem(b, n, "object")
	for b.Loop() {
		m.Pause()
		cs := newCounters(1)
		h := start(b, setup[T]{objects: n, handlers: 1, on: func(int, T) { cs[0].count() }})
		h.prepare()
		m.Resume()
		h.start()
		waitAll(cs, int64(n))
		m.Pause()
		h.stop()
		m.Resume()
	}
	m.Report()

	cs := newCounters(1)
	before := measure.LiveHeap()
	h := start(b, setup[T]{objects: n, handlers: 1, on: func(int, T) { cs[0].count() }})
	h.start()
	waitAll(cs, int64(n))
	after := measure.LiveHeap()
	if got := h.list(); got != n {
		b.Fatalf("cache has %d objects, want %d", got, n)
	}
	h.stop()
	b.ReportMetric(float64(int64(after)-int64(before))/float64(n), "heap-B/object")
}

// updates prepares watch events over the n objects of a synced informer:
// event g carries object g%n in a state whose resource version differs from
// the one cached before it, so that no implementation may take it for a
// resync.
type updates[T any] struct {
	states [2][]T
	next   int
}

func newUpdates[T, L any](kind fixture.Kind[T, L], n int) *updates[T] {
	u := &updates[T]{}
	u.states[0] = kind.Set(n)
	u.states[1] = make([]T, n)
	for i, o := range u.states[0] {
		u.states[1][i] = kind.WithVersion(o, n+i+1)
	}
	return u
}

// randomizer returns a generator of events on objects picked at random
// (with a fixed seed), each in the state other than the one its previous
// event, or the initial list, carried.
func (u *updates[T]) randomizer() func() T {
	n := len(u.states[0])
	rng := rand.New(rand.NewPCG(1, 2))
	flipped := make([]bool, n)
	return func() T {
		i := rng.IntN(n)
		flipped[i] = !flipped[i]
		if flipped[i] {
			return u.states[1][i]
		}
		return u.states[0][i]
	}
}

func (u *updates[T]) event() T {
	n := len(u.states[0])
	o := u.states[(u.next/n+1)%2][u.next%n]
	u.next++
	return o
}

// syncedHarness starts the informer s describes and waits until its
// handlers have all been told about every object. Every later notification
// of handler i goes to s.on(i, obj).
func syncedHarness[T any](b *testing.B, start starter[T], s setup[T]) harness[T] {
	cs := newCounters(s.handlers)
	var synced atomic.Bool
	on := s.on
	s.on = func(i int, obj T) {
		if synced.Load() {
			on(i, obj)
			return
		}
		cs[i].count()
	}
	h := start(b, s)
	h.start()
	waitAll(cs, int64(s.objects))
	synced.Store(true)
	return h
}

// BenchmarkInformerEvents sends 1M Modified events over 10k cached objects
// through the source's watch and waits until every handler has been told
// about each: events/s, and bytes and allocations per event, all
// goroutines included. The caches have a namespace index, as informers
// usually do, except in the index=none variant. The fan-out to 16 handlers
// sends 250k events, and kind=pod sends events about Pods, both on the
// Kubernetes path only.
func BenchmarkInformerEvents(b *testing.B) {
	const objects = 10_000
	for _, tc := range []struct {
		name     string
		handlers int
		noIndex  bool
		events   int
	}{
		{"handlers=1", 1, false, 1_000_000},
		{"handlers=4", 4, false, 1_000_000},
		{"handlers=1,index=none", 1, true, 1_000_000},
	} {
		b.Run(tc.name, func(b *testing.B) {
			paths(b, func(b *testing.B, start starter[*corev1.ConfigMap]) {
				informerEvents(b, start, fixture.ConfigMaps, setup[*corev1.ConfigMap]{objects: objects, handlers: tc.handlers, noIndex: tc.noIndex}, measure.Size(tc.events))
			})
		})
	}
	// Metrics cost typedcache's informer one atomic add per event, and a
	// read of its counters per scrape: this row, against handlers=1, is
	// that cost, with a scrape every 100ms. Client-go's informers have no
	// equivalent to compare with.
	b.Run("handlers=1,metrics=on", func(b *testing.B) {
		b.Run("path=kube", func(b *testing.B) {
			b.Run("impl=typedcache", func(b *testing.B) {
				informerEvents(b, kubeStarter(configMaps), fixture.ConfigMaps, setup[*corev1.ConfigMap]{objects: objects, handlers: 1, metrics: true}, measure.Size(1_000_000))
			})
		})
	})
	b.Run("handlers=16", func(b *testing.B) {
		kubePath(b, configMaps, func(b *testing.B, start starter[*corev1.ConfigMap]) {
			informerEvents(b, start, fixture.ConfigMaps, setup[*corev1.ConfigMap]{objects: objects, handlers: 16}, measure.Size(250_000))
		})
	})
	b.Run("handlers=1,kind=pod", func(b *testing.B) {
		kubePath(b, pods, func(b *testing.B, start starter[*corev1.Pod]) {
			informerEvents(b, start, fixture.Pods, setup[*corev1.Pod]{objects: objects, handlers: 1}, measure.Size(1_000_000))
		})
	})
}

// informerEvents is one run of BenchmarkInformerEvents.
// s describes the informer; its on is set here.
func informerEvents[T, L any](b *testing.B, start starter[T], kind fixture.Kind[T, L], s setup[T], events int) {
	ctx := context.Background()
	ups := newUpdates(kind, s.objects)
	cs := newCounters(s.handlers)
	s.on = func(i int, _ T) { cs[i].count() }
	h := syncedHarness(b, start, s)
	defer h.stop()
	var total int64
	m := measure.PerItem(b, events, "event")
	for b.Loop() {
		total += int64(events)
		for range events {
			if !h.send(ctx, ups.event()) {
				b.Fatal("watch closed")
			}
		}
		waitAll(cs, total)
	}
	m.Report()
}

// BenchmarkInformerLatency sends Modified events over 10k cached objects
// at a fixed rate for a second (a tenth in -quick mode) and reports the
// time from each send to its handler call, p50 and p99.
//
// The sender yields after each send, so that the goroutines the send made
// runnable run before the sender sleeps until the next event is due, as
// they would after a real source's send, which goes back to a network
// read. Without the yield the sender's sleep is part of the latency
// measured: a sleep that arms the process's earliest timer writes to the
// network poller's wakeup descriptor, a syscall that took up to 200 µs on
// a 2-vCPU VM, while the informer's goroutine that the send woke waited on
// the same processor for the syscall to return.
func BenchmarkInformerLatency(b *testing.B) {
	const objects = 10_000
	for _, rate := range []struct {
		name   string
		perSec int
	}{{"rate=1k", 1_000}, {"rate=10k", 10_000}, {"rate=100k", 100_000}} {
		b.Run(rate.name, func(b *testing.B) {
			paths(b, func(b *testing.B, start starter[*corev1.ConfigMap]) {
				ctx := context.Background()
				events := measure.Size(rate.perSec)
				interval := time.Second / time.Duration(rate.perSec)
				base := fixture.Set(objects)
				sentAt := make([]time.Duration, events)
				lat := measure.NewLatencies(events)
				epoch := time.Now()
				// Events carry resource versions firstRV, firstRV+1, ...;
				// the handler finds each event's send time through it.
				var firstRV atomic.Int64
				cs := newCounters(1)
				h := syncedHarness(b, start, setup[*corev1.ConfigMap]{objects: objects, handlers: 1, on: func(_ int, obj *corev1.ConfigMap) {
					now := time.Since(epoch)
					rv, _ := strconv.Atoi(obj.ResourceVersion)
					i := rv - int(firstRV.Load())
					lat.Record(i, now-sentAt[i])
					cs[0].count()
				}})
				defer h.stop()
				rv := 10 * objects
				var total int64
				for b.Loop() {
					total += int64(events)
					firstRV.Store(int64(rv))
					objs := make([]*corev1.ConfigMap, events)
					for i := range objs {
						objs[i] = fixture.WithVersion(base[i%objects], rv+i)
					}
					rv += events
					begin := time.Since(epoch)
					for i, obj := range objs {
						due := begin + time.Duration(i)*interval
						if wait := due - time.Since(epoch); wait > 50*time.Microsecond {
							time.Sleep(wait)
						}
						sentAt[i] = time.Since(epoch)
						if !h.send(ctx, obj) {
							b.Fatal("watch closed")
						}
						runtime.Gosched()
					}
					waitAll(cs, total)
				}
				lat.Report(b, "")
			})
		})
	}
}

// BenchmarkInformerWritesWhileListing measures the writes per second that
// reach the handler, over a second (a tenth in -quick mode), while listers
// goroutines list the whole cache of 10k objects in a loop through each
// side's lister (client-go's generated ConfigMapLister with
// labels.Everything(), typedcache's Lister().List()). Events are sent in
// one of two shapes:
//
//   - listers=N: as fast as the informer takes them, in object order, 64
//     at a time into the watch's buffer of 100.
//   - listers=N,inflight=10: the shape of client-go's own
//     BenchmarkSharedIndexInformer (tools/cache), whose run with 10 readers
//     is the "about 100 writes/s" the informer issue quotes for client-go:
//     each event modifies an object picked at random, and the sender waits
//     while 10 events it sent have not reached the handler yet.
func BenchmarkInformerWritesWhileListing(b *testing.B) {
	const objects = 10_000
	window := time.Second
	if testing.Short() {
		window /= 10
	}
	for _, inFlight := range []int{0, 10} {
		for _, listers := range []int{0, 1, 10} {
			name := "listers=" + strconv.Itoa(listers)
			if inFlight > 0 {
				name += ",inflight=" + strconv.Itoa(inFlight)
			}
			b.Run(name, func(b *testing.B) {
				paths(b, func(b *testing.B, start starter[*corev1.ConfigMap]) {
					writesWhileListing(b, start, objects, listers, inFlight, window)
				})
			})
		}
	}
}

// writesWhileListing is one run of BenchmarkInformerWritesWhileListing: it
// sends events for window at a time, with at most inFlight of them not yet
// handled (0: no bound), while listers goroutines list the cache.
func writesWhileListing(b *testing.B, start starter[*corev1.ConfigMap], objects, listers, inFlight int, window time.Duration) {
	ctx := context.Background()
	ups := newUpdates(fixture.ConfigMaps, objects)
	next := ups.event
	var slots chan struct{} // a send holds a slot until its event is handled
	if inFlight > 0 {
		slots = make(chan struct{}, inFlight)
		next = ups.randomizer()
	}
	cs := newCounters(1)
	h := syncedHarness(b, start, setup[*corev1.ConfigMap]{objects: objects, handlers: 1, on: func(int, *corev1.ConfigMap) {
		if slots != nil {
			<-slots
		}
		cs[0].count()
	}})
	defer h.stop()

	var stop atomic.Bool
	var wg sync.WaitGroup
	defer func() { stop.Store(true); wg.Wait() }()
	for range listers {
		wg.Go(func() {
			for !stop.Load() {
				if got := h.list(); got != objects {
					b.Errorf("List returned %d objects, want %d", got, objects)
					return
				}
			}
		})
	}

	var total, writes int64
	var elapsed time.Duration
	for b.Loop() {
		begin := time.Now()
		sent := int64(0)
		for time.Since(begin) < window {
			for range 64 {
				if slots != nil {
					slots <- struct{}{}
				}
				if !h.send(ctx, next()) {
					b.Fatal("watch closed")
				}
			}
			sent += 64
		}
		total += sent
		waitAll(cs, total)
		elapsed += time.Since(begin)
		writes += sent
	}
	b.ReportMetric(float64(writes)/elapsed.Seconds(), "writes/s")
}
