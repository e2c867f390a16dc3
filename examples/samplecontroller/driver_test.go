package main

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/memsource"
)

// script runs a driver with this seed for 400 steps against sources no
// controller touches, and returns what it did to the Foos and how many
// faults it injected. With children, every seeded Foo starts with the Bars
// a controller would have made, which the driver then finds.
func script(t *testing.T, seed uint64, children bool) []string {
	var out []string
	synctest.Test(t, func(t *testing.T) {
		foos := memsource.New(memsource.Options[*Foo]{})
		bars := memsource.New(memsource.Options[*Bar]{})
		d := newDriver(foos, bars, seed)
		if err := d.seed(10); err != nil {
			t.Fatal(err)
		}
		if children {
			fs, err := listAll(foos)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fs {
				for i := range 6 {
					b := &Bar{Meta: Meta{Namespace: f.Namespace, Name: childName(f.Name, i)}, Owner: f.Name, Image: f.Image}
					if _, err := bars.Create(b); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		const interval = 5 * time.Millisecond
		// Off the tick, so that the last tick and the deadline never tie.
		ctx, cancel := context.WithTimeout(context.Background(), 400*interval+interval/2)
		defer cancel()
		d.run(ctx, interval)
		d.calm() // pending list faults would fail the lists below
		fs, err := listAll(foos)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			out = append(out, fmt.Sprintf("foo %s/%s %d %s", f.Namespace, f.Name, f.Replicas, f.Image))
		}
		out = append(out, fmt.Sprintf("foo writes %d, faults %d", d.fooWrites.Load(), d.faults.Load()))
	})
	return out
}

// The same -seed replays the same script of changes and faults, whatever
// Bars the controller made meanwhile; another seed plays another.
func TestSeedReplaysScript(t *testing.T) {
	first, again, other := script(t, 7, false), script(t, 7, true), script(t, 8, false)
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("seed 7 played another script once the Bars existed (-without +with):\n%s", diff)
	}
	if cmp.Equal(first, other) {
		t.Error("seeds 7 and 8 played the same script")
	}
}
