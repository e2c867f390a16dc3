package shard_test

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/typedcache/typedcache/kube/shard"
)

const (
	leaseDuration = shard.DefaultLeaseDuration
	renewDeadline = shard.DefaultRenewDeadline
	retryPeriod   = shard.DefaultRetryPeriod
)

// TestSpread: three members share the keys; every key is processed, each
// always by the same member, and all three take part.
func TestSpread(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, 90, shard.Options{}, 100*time.Millisecond)
		rs := []*replica{w.start("a", shard.Options{}), w.start("b", shard.Options{}), w.start("c", shard.Options{})}
		time.Sleep(time.Minute)
		touched := time.Now()
		w.touch(w.keys, rs...)
		time.Sleep(time.Minute)
		synctest.Wait()
		w.check()
		by := map[string]string{}
		for _, sp := range w.spans {
			if sp.start.Before(touched) {
				continue // members joined one by one before
			}
			if prev, ok := by[sp.key]; ok && prev != sp.replica {
				t.Errorf("%s processed by %s and %s with no change of members", sp.key, prev, sp.replica)
			}
			by[sp.key] = sp.replica
		}
		for _, r := range rs {
			if n := len(w.ownedBy(r.id)); n < 15 {
				t.Errorf("%s processed %d of 90 keys, want about a third", r.id, n)
			}
			if got := r.sh.Members(); !slices.Equal(got, []string{"a", "b", "c"}) {
				t.Errorf("%s: Members() = %v, want [a b c]", r.id, got)
			}
		}
	})
}

// TestCrash: a member stops without deleting its Lease, as a crashed
// process would. The others take its keys once its Lease has gone
// unrenewed for a lease duration (they delete it), within a few retry
// periods more, and every key converges.
func TestCrash(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		keep := shard.Options{KeepLease: true}
		w := newWorld(t, 90, keep, 100*time.Millisecond)
		a, b, c := w.start("a", keep), w.start("b", keep), w.start("c", keep)
		time.Sleep(time.Minute)
		lost := w.ownedBy("c")
		crash := time.Now()
		if err := c.stop(); err != nil {
			t.Errorf("c: Run = %v, want nil", err)
		}
		w.touch(w.keys, a, b)
		time.Sleep(time.Minute)
		synctest.Wait()
		w.check()
		_, first := w.handoff("c", lost, crash)
		wait := first.Sub(crash)
		t.Logf("c's %d keys waited %v after the crash", len(lost), wait)
		if wait < leaseDuration-retryPeriod || wait > leaseDuration+4*retryPeriod {
			t.Errorf("c's keys were taken %v after the crash, want within [%v, %v]", wait, leaseDuration-retryPeriod, leaseDuration+4*retryPeriod)
		}
		if got := w.store.names(); !slices.Equal(got, []string{"ctl-a", "ctl-b"}) {
			t.Errorf("Leases after the crash: %v, want c's deleted", got)
		}
	})
}

// TestLeave: a member that stops deletes its Lease once its work has
// ended, and the others take its keys within a couple of retry periods.
func TestLeave(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, 90, shard.Options{}, 100*time.Millisecond)
		a, b, c := w.start("a", shard.Options{}), w.start("b", shard.Options{}), w.start("c", shard.Options{})
		time.Sleep(time.Minute)
		lost := w.ownedBy("c")
		stop := time.Now()
		if err := c.stop(); err != nil {
			t.Errorf("c: Run = %v, want nil", err)
		}
		if got := w.store.names(); slices.Contains(got, "ctl-c") {
			t.Errorf("c's Lease is still there after Run returned: %v", got)
		}
		w.touch(w.keys, a, b)
		time.Sleep(time.Minute)
		synctest.Wait()
		w.check()
		_, first := w.handoff("c", lost, stop)
		t.Logf("c's %d keys waited %v after it left", len(lost), first.Sub(stop))
		if wait := first.Sub(stop); wait > 3*retryPeriod {
			t.Errorf("c's keys were taken %v after it left, want at most %v", wait, 3*retryPeriod)
		}
	})
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
		time.Sleep(retryPeriod / 2)
		join := time.Now()
		c := w.start("c", shard.Options{})
		time.Sleep(2 * time.Minute)
		w.touch(w.keys, a, b, c)
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		w.check()
		gained := w.ownedBy("c")
		if len(gained) < 15 {
			t.Errorf("c processed %d of 90 keys, want about a third", len(gained))
		}
		first := w.firstStart("c", join)
		t.Logf("c joined and started its first key %v later", first.Sub(join))
		if wait := first.Sub(join); wait > 3*time.Second+3*retryPeriod {
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
		w := newWorld(t, 90, shard.Options{}, 4*time.Second) // long work: it runs into the deadline
		a, b, c := w.start("a", shard.Options{}), w.start("b", shard.Options{}), w.start("c", shard.Options{})
		time.Sleep(time.Minute)
		w.touch(w.keys, a, b, c)
		time.Sleep(retryPeriod / 2)
		lost := w.ownedBy("c")
		cut := time.Now()
		c.link.down.Store(true)
		time.Sleep(time.Minute)
		w.touch(w.keys, a, b, c)
		time.Sleep(time.Minute)
		c.link.down.Store(false)
		time.Sleep(time.Minute)
		w.touch(w.keys, a, b, c)
		time.Sleep(3 * time.Minute) // c works on its keys alone, 4 s each with 2 workers
		synctest.Wait()
		w.check()
		_, first := w.handoff("c", lost, cut)
		t.Logf("c cut off; its keys were taken %v later", first.Sub(cut))
		if wait := first.Sub(cut); wait < leaseDuration-retryPeriod {
			t.Errorf("c's keys were taken %v after it was cut off, before its Lease can have expired", wait)
		}
		if len(w.ownedBy("c")) == 0 {
			t.Errorf("c processed nothing after it came back")
		}
		if got := c.sh.Members(); !slices.Equal(got, []string{"a", "b", "c"}) {
			t.Errorf("c: Members() = %v after it came back, want [a b c]", got)
		}
	})
}
