package shard_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/typedcache/typedcache/kube/shard"
)

// FuzzMembership drives a group through a sequence of joins, leaves,
// crashes, partitions and changes decoded from the input, and checks the
// two promises against the simplest model of them: a key is processed
// by at most one replica at any instant, and once the group is left
// alone every key reaches its desired state.
//
// Each byte is one step: its low three bits pick the operation, the rest,
// a number from 0 to 31, how long (in seconds, bubble time) to wait after
// it and, for operations on a replica, which one (and how its link
// fails).
func FuzzMembership(f *testing.F) {
	for _, seed := range []string{
		"\x00\x00\x00\x44\x21\x83\x23",         // three join, one crashes, one is cut off and back
		"\x00\x08\x00\x02\x09\x07\x00\x05\x0c", // joins and leaves in quick succession
		"\x00\x00\x00\x03\x13\x03\x1b\x04\x04", // a member flaps: cut off and back, twice
		"\x00\x00\x01\x01\x00\x00\x04",         // all crash, then two join
		"\x00\x00\x0b\x00\x3c\x00\x04\x0d",     // writes that take effect unseen, while one joins
		"\x00\x00\x00\x13\x00\xfd\x04\x05",     // one cannot list while another joins
		"\x00\x00\x00\x44\x21\x50\x33",         // a crash, a join, and the joiner cut off for 6 s
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, steps []byte) {
		if len(steps) > 40 {
			steps = steps[:40]
		}
		synctest.Test(t, func(t *testing.T) {
			w := newWorld(t, 30, shard.Options{}, 3*time.Second)
			var live []*replica
			next := 0
			pick := func(b byte) *replica { return live[int(b>>3)/3%len(live)] }
			for _, b := range steps {
				switch b & 7 {
				case 0, 6: // a replica joins; every other one crashes instead of leaving
					if len(live) < 5 {
						live = append(live, w.start(fmt.Sprintf("r%d", next), shard.Options{KeepLease: next%2 == 1}))
						next++
					}
				case 1, 2: // a replica stops: leaves, or crashes (KeepLease)
					if len(live) > 0 {
						r := pick(b)
						r.stop()
						live = remove(live, r)
					}
				case 3: // a replica is cut off from the server, loses the responses, or cannot list
					if len(live) > 0 {
						l := pick(b).link
						[]*atomic.Bool{&l.Down, &l.Lossy, &l.Blind}[int(b>>3)%3].Store(true)
					}
				case 4: // every link works again
					for _, r := range live {
						r.link.Heal()
					}
				case 5, 7: // the objects change
					w.touch(w.keys, live...)
				}
				time.Sleep(time.Duration(b>>3) * time.Second)
			}
			for _, r := range live {
				r.link.Heal()
			}
			if len(live) == 0 {
				live = append(live, w.start(fmt.Sprintf("r%d", next), shard.Options{}))
			}
			w.touch(w.keys, live...)
			time.Sleep(5 * time.Minute)
			synctest.Wait()
			w.check()
		})
	})
}

func remove(rs []*replica, r *replica) []*replica {
	for i := range rs {
		if rs[i] == r {
			return append(rs[:i:i], rs[i+1:]...)
		}
	}
	return rs
}
