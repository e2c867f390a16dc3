package shard_test

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/typedcache/typedcache/kube/internal/lease"
	"github.com/typedcache/typedcache/kube/internal/worklog"
	"github.com/typedcache/typedcache/kube/shard"
)

// TestSpread: three members share the keys; every key is processed, each
// always by the same member, and all three take part.
func TestSpread(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, a, b, c := threeMembers(t, shard.Options{}, 100*time.Millisecond)
		rs := []*replica{a, b, c}
		touched := time.Now()
		w.touch(w.keys, rs...)
		time.Sleep(time.Minute)
		synctest.Wait()
		w.check()
		by := map[string]string{}
		for _, sp := range w.log.Spans() {
			if sp.Start.Before(touched) {
				continue // members joined one by one before
			}
			if prev, ok := by[sp.Key]; ok && prev != sp.Replica {
				t.Errorf("%s processed by %s and %s with no change of members", sp.Key, prev, sp.Replica)
			}
			by[sp.Key] = sp.Replica
		}
		for _, r := range rs {
			if n := len(w.log.LastBy(r.id)); n < 15 {
				t.Errorf("%s processed %d of 90 keys, want about a third", r.id, n)
			}
			if got := r.sh.Members(); !slices.Equal(got, []string{"a", "b", "c"}) {
				t.Errorf("%s: Members() = %v, want [a b c]", r.id, got)
			}
		}
	})
}

// TestStop: a member stops. If it leaves (Run deletes its Lease once its
// work has ended) the others take its keys within a few retry periods; if
// it crashes (KeepLease), once its Lease has gone unrenewed for a lease
// duration and they deleted it, within a few retry periods more. Every
// key converges.
func TestStop(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     shard.Options
		min, max time.Duration // the wait of its keys
	}{
		{"leave", shard.Options{}, 0, 3 * lease.DefaultRetryPeriod},
		{"crash", shard.Options{KeepLease: true}, lease.DefaultLeaseDuration - lease.DefaultRetryPeriod, lease.DefaultLeaseDuration + 4*lease.DefaultRetryPeriod},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w, a, b, c := threeMembers(t, tc.opts, 100*time.Millisecond)
				lost := w.log.LastBy("c")
				stop := time.Now()
				if err := c.stop(); err != nil {
					t.Errorf("c: Run = %v, want nil", err)
				}
				w.touch(w.keys, a, b)
				time.Sleep(time.Minute)
				synctest.Wait()
				w.check()
				waits := worklog.Waits(w.log.FirstStarts(lost, func(r string) bool { return r != "c" }, stop), stop)
				if len(waits) != len(lost) {
					t.Fatalf("%d of c's %d keys were taken", len(waits), len(lost))
				}
				t.Logf("c's %d keys waited %v to %v", len(lost), waits[0], waits[len(waits)-1])
				if waits[0] < tc.min || waits[0] > tc.max {
					t.Errorf("c's keys were taken %v after it stopped, want within [%v, %v]", waits[0], tc.min, tc.max)
				}
				if got := w.store.Names(); !slices.Equal(got, []string{"ctl-a", "ctl-b"}) {
					t.Errorf("Leases after c stopped: %v, want c's deleted", got)
				}
			})
		})
	}
}

// TestJoin: a member joins while the keys are being processed. The keys
// it owns move to it only after their previous owners released them, no
// key is processed twice at once, and it gets about a third.
func TestJoin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, 90, shard.Options{}, 3*time.Second) // long work: the joiner must wait for it
		a, b := w.start("a", shard.Options{}), w.start("b", shard.Options{})
		time.Sleep(30 * time.Second)
		w.touch(w.keys, a, b)
		time.Sleep(lease.DefaultRetryPeriod / 2)
		join := time.Now()
		c := w.start("c", shard.Options{})
		time.Sleep(2 * time.Minute)
		w.touch(w.keys, a, b, c)
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		w.check()
		gained := w.log.LastBy("c")
		if len(gained) < 15 {
			t.Errorf("c processed %d of 90 keys, want about a third", len(gained))
		}
		waits := worklog.Waits(w.log.FirstStarts(gained, func(r string) bool { return r == "c" }, join), join)
		if len(waits) == 0 {
			t.Fatal("c processed nothing")
		}
		t.Logf("c joined and started its first key %v later", waits[0])
		if wait := waits[0]; wait > 3*time.Second+3*lease.DefaultRetryPeriod {
			t.Errorf("c started its first key %v after it joined, want at most the running work (3s) and three retry periods", wait)
		}
	})
}

// TestPartition: a member cut off from the server keeps processing the
// work it has (its reconciles do not need the server) only until its
// renew deadline; the others take its keys only after its Lease expired,
// so never while it still works on them; when the link returns it joins
// again and gets its keys back.
func TestPartition(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, a, b, c := threeMembers(t, shard.Options{}, 4*time.Second) // long work: it runs into the deadline
		w.touch(w.keys, a, b, c)
		time.Sleep(lease.DefaultRetryPeriod / 2)
		lost := w.log.LastBy("c")
		cut := time.Now()
		c.link.Down.Store(true)
		time.Sleep(time.Minute)
		w.touch(w.keys, a, b, c)
		time.Sleep(time.Minute)
		c.link.Down.Store(false)
		time.Sleep(time.Minute)
		w.touch(w.keys, a, b, c)
		time.Sleep(3 * time.Minute) // c works on its keys alone, 4 s each with 2 workers
		synctest.Wait()
		w.check()
		waits := worklog.Waits(w.log.FirstStarts(lost, func(r string) bool { return r != "c" }, cut), cut)
		if len(waits) == 0 {
			t.Fatal("no other replica took c's keys")
		}
		t.Logf("c cut off; its keys were taken %v later", waits[0])
		if waits[0] < lease.DefaultLeaseDuration-lease.DefaultRetryPeriod {
			t.Errorf("c's keys were taken %v after it was cut off, before its Lease can have expired", waits[0])
		}
		if len(w.log.LastBy("c")) == 0 {
			t.Errorf("c processed nothing after it came back")
		}
		if got := c.sh.Members(); !slices.Equal(got, []string{"a", "b", "c"}) {
			t.Errorf("c: Members() = %v after it came back, want [a b c]", got)
		}
	})
}

// TestBlindMember: a member that can renew its Lease but not list the
// group cannot see a joiner, so it would hold the keys the joiner waits
// for; it stops renewing after a renew deadline without a list, the
// others delete its Lease, and the joiner gets its keys.
func TestBlindMember(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, a, b, c := threeMembers(t, shard.Options{}, 100*time.Millisecond)
		c.link.Blind.Store(true)
		d := w.start("d", shard.Options{})
		w.touch(w.keys, a, b, c, d)
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		w.check()
		if len(w.log.LastBy("d")) == 0 {
			t.Errorf("d processed nothing while c could not list")
		}
		if got := w.store.Names(); slices.Contains(got, "ctl-c") {
			t.Errorf("c's Lease is still there: %v", got)
		}
	})
}

// TestFencedWorkResumes: a member cut off for a little longer than its
// renew deadline is fenced while work runs (work that ignores its
// context and fails late); once the link is back it renews its Lease,
// which the others had not yet deleted, and that work is done again.
func TestFencedWorkResumes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, a, b, c := threeMembers(t, shard.Options{}, 5*time.Second)
		w.touch(w.keys, a, b, c) // c works for over a minute
		time.Sleep(3 * time.Second)
		c.link.Down.Store(true)
		time.Sleep(lease.DefaultRenewDeadline) // fenced (its work still running), not yet deleted
		c.link.Heal()
		time.Sleep(3 * time.Minute)
		synctest.Wait()
		w.check()
		if got := w.store.Names(); !slices.Contains(got, "ctl-c") {
			t.Errorf("c's Lease was deleted: %v; the test wants it fenced but kept", got)
		}
	})
}
