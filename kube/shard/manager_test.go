package shard_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube/internal/lease"
	"github.com/typedcache/typedcache/kube/internal/leasetest"
	"github.com/typedcache/typedcache/kube/internal/worklog"
	"github.com/typedcache/typedcache/kube/shard"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/queue"
)

// fleet is a group of replicas of one controller, each a
// controller.Manager whose Elector is its Shard, all watching one source
// of ConfigMaps and sharing one Lease store: the program a user writes,
// run N times.
type fleet struct {
	t     *testing.T
	store *leasetest.Store
	src   *memsource.Source[*corev1.ConfigMap]
	names []string
	work  time.Duration // how long one reconcile takes
	log   *worklog.Log

	mu   sync.Mutex
	done map[string]string // key → generation ("gen" in Data) last reconciled
}

func newFleet(t *testing.T, nobjects int, work time.Duration) *fleet {
	f := &fleet{t: t, store: leasetest.NewStore(), src: memsource.New(memsource.Options[*corev1.ConfigMap]{}),
		work: work, log: worklog.New(nil), done: map[string]string{}}
	for i := range nobjects {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("cm-%03d", i)}, Data: map[string]string{"gen": "1"}}
		if _, err := f.src.Create(cm); err != nil {
			t.Fatalf("Create: %v", err)
		}
		f.names = append(f.names, "ns/"+cm.Name)
	}
	return f
}

// member is one replica: its Manager runs its controller under its Shard.
type member struct {
	id  string
	sh  *shard.Shard
	ctl *controller.Controller[string]
	// stop ends the replica's Manager, once, and returns its result.
	stop func() error
}

// start starts a replica and stops it when the test ends.
func (f *fleet) start(id string, opts shard.Options) *member {
	f.t.Helper()
	sh, err := shard.New(leasetest.NewLink(f.store).Client(), "ctl", id, opts)
	if err != nil {
		f.t.Fatalf("shard.New: %v", err)
	}
	quiet := slog.New(slog.DiscardHandler)
	factory := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	cms := informer.For(factory, f.src)
	c := controller.New("configmaps", f.reconcile(id, cms), controller.Options[string]{MaxConcurrentReconciles: 2, Logger: quiet})
	if err := controller.For(c, cms); err != nil {
		f.t.Fatalf("For: %v", err)
	}
	m := controller.NewManager(factory, controller.ManagerOptions{Elector: sh})
	if err := m.Add(c); err != nil {
		f.t.Fatalf("Add: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	r := &member{id: id, sh: sh, ctl: c, stop: sync.OnceValue(func() error { cancel(); return <-done })}
	f.t.Cleanup(func() {
		if err := r.stop(); err != nil {
			f.t.Errorf("%s: Manager.Run = %v, want nil", id, err)
		}
	})
	return r
}

// reconcile records the generation of the cached ConfigMap of key, taking
// f.work whatever its context says; the log records any overlap.
func (f *fleet) reconcile(replica string, cms *informer.Informer[*corev1.ConfigMap]) func(context.Context, string) (queue.Result, error) {
	return func(ctx context.Context, key string) (queue.Result, error) {
		sp := f.log.Begin(replica, key)
		defer f.log.End(sp)
		cm, ok := cms.Cache().GetByKey(key)
		if !ok {
			return queue.Result{}, nil
		}
		time.Sleep(f.work)
		if ctx.Err() != nil {
			return queue.Result{}, context.Cause(ctx)
		}
		f.mu.Lock()
		f.done[key] = cm.Data["gen"]
		f.mu.Unlock()
		return queue.Result{}, nil
	}
}

// touch changes every ConfigMap: each replica's informer sees the change
// and queues its key.
func (f *fleet) touch() {
	f.t.Helper()
	for _, key := range f.names {
		cm, _ := f.src.Get(key)
		cm = cm.DeepCopy()
		n, _ := strconv.Atoi(cm.Data["gen"])
		cm.Data["gen"] = strconv.Itoa(n + 1)
		if _, err := f.src.Update(cm); err != nil {
			f.t.Fatalf("Update: %v", err)
		}
	}
}

// check fails the test on any overlap, and on any key whose latest
// generation was not reconciled.
func (f *fleet) check() {
	f.t.Helper()
	if o := f.log.Overlaps(); len(o) > 0 {
		f.t.Errorf("%d overlapping reconciles, first: %s", len(o), o[0])
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var stale []string
	for _, key := range f.names {
		cm, _ := f.src.Get(key)
		if f.done[key] != cm.Data["gen"] {
			stale = append(stale, fmt.Sprintf("%s at %q want %q", key, f.done[key], cm.Data["gen"]))
		}
	}
	if len(stale) > 0 {
		slices.Sort(stale)
		f.t.Errorf("%d keys not converged, first: %v", len(stale), stale[:min(3, len(stale))])
	}
}

// TestManagersShareKeys: three Managers whose Elector is a Shard run the
// same controller; after a change of every object, each key is reconciled
// by one replica only, all three take part, and no key is reconciled by
// two at once.
func TestManagersShareKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFleet(t, 60, 100*time.Millisecond)
		rs := []*member{f.start("a", shard.Options{}), f.start("b", shard.Options{}), f.start("c", shard.Options{})}
		time.Sleep(time.Minute)
		touched := time.Now()
		f.touch()
		time.Sleep(time.Minute)
		synctest.Wait()
		f.check()
		by := map[string]string{}
		for _, sp := range f.log.Spans() {
			if sp.Start.Before(touched) {
				continue
			}
			if prev, ok := by[sp.Key]; ok && prev != sp.Replica {
				t.Errorf("%s reconciled by %s and %s with no change of members", sp.Key, prev, sp.Replica)
			}
			by[sp.Key] = sp.Replica
		}
		if len(by) != len(f.names) {
			t.Errorf("%d of %d keys reconciled after the change", len(by), len(f.names))
		}
		for _, r := range rs {
			n := 0
			for _, who := range by {
				if who == r.id {
					n++
				}
			}
			if n < 10 {
				t.Errorf("%s reconciled %d of 60 keys, want about a third", r.id, n)
			}
			if err := r.ctl.WaitIdle(t.Context()); err != nil {
				t.Errorf("%s: WaitIdle = %v", r.id, err)
			}
		}
	})
}

// TestManagerLeaves: a replica's Manager stops; the others take its keys
// within a few retry periods, queued from their primary informers' caches
// although no object changed, and its Lease is gone.
func TestManagerLeaves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFleet(t, 60, 100*time.Millisecond)
		f.start("a", shard.Options{})
		f.start("b", shard.Options{})
		c := f.start("c", shard.Options{})
		time.Sleep(time.Minute)
		lost := f.log.LastBy("c")
		if len(lost) == 0 {
			t.Fatal("c reconciled nothing")
		}
		left := time.Now()
		if err := c.stop(); err != nil {
			t.Errorf("c: Manager.Run = %v, want nil", err)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		f.check()
		waits := worklog.Waits(f.log.FirstStarts(lost, func(r string) bool { return r != "c" }, left), left)
		if len(waits) != len(lost) {
			t.Fatalf("%d of c's %d keys were queued again by the others", len(waits), len(lost))
		}
		if waits[len(waits)-1] > 3*lease.DefaultRetryPeriod {
			t.Errorf("c's keys were taken up to %v after it left, want within three retry periods", waits[len(waits)-1])
		}
		if got := f.store.Names(); !slices.Equal(got, []string{"ctl-a", "ctl-b"}) {
			t.Errorf("Leases after c left: %v, want c's deleted", got)
		}
	})
}

// TestManagerJoinsDuringWork: a replica joins while long reconciles run
// and the objects keep changing: no key is reconciled by two replicas at
// once, the joiner gets its share, and every key converges.
func TestManagerJoinsDuringWork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFleet(t, 60, 3*time.Second)
		f.start("a", shard.Options{})
		f.start("b", shard.Options{})
		time.Sleep(time.Minute)
		f.touch()
		time.Sleep(lease.DefaultRetryPeriod / 2)
		f.start("c", shard.Options{})
		time.Sleep(5 * time.Second)
		f.touch()
		time.Sleep(3 * time.Minute)
		synctest.Wait()
		f.check()
		if n := len(f.log.LastBy("c")); n < 10 {
			t.Errorf("c reconciled %d of 60 keys, want about a third", n)
		}
	})
}
