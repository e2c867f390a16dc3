package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/memsource"
)

// driver plays the rest of the world: users who create, scale, change and
// delete Foos, other actors who delete, edit or plant Bars behind the
// controller's back, and an API server that drops watches, fails requests and
// forgets old versions.
type driver struct {
	foos       *memsource.Source[*Foo]
	bars       *memsource.Source[*Bar]
	rng        *rand.Rand
	namespaces int
	images     []string
	fooKeys    []string // every Foo key the driver created; some may be deleted since

	fooWrites, barDisturbances, faults atomic.Uint64
}

func newDriver(foos *memsource.Source[*Foo], bars *memsource.Source[*Bar], seed uint64) *driver {
	return &driver{
		foos:       foos,
		bars:       bars,
		rng:        rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		namespaces: 3,
		images:     []string{"nginx:1.27", "nginx:1.28", "nginx:1.29"},
	}
}

// seed creates the Foos the controller finds at start.
func (d *driver) seed(n int) error {
	for i := range n {
		d.createFoo(fmt.Sprintf("foo-%d", i))
	}
	if len(d.fooKeys) != n {
		return fmt.Errorf("seeded %d of %d foos", len(d.fooKeys), n)
	}
	return nil
}

// run makes one change every interval until ctx ends.
func (d *driver) run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for step := 0; ; step++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		switch r := d.rng.IntN(100); {
		case r < 55:
			d.changeFoo(step)
		case r < 90:
			d.disturbBar()
		default:
			d.injectFault()
		}
	}
}

func (d *driver) namespace() string { return fmt.Sprintf("team-%d", d.rng.IntN(d.namespaces)) }
func (d *driver) image() string     { return d.images[d.rng.IntN(len(d.images))] }

// changeFoo creates, scales, re-images or deletes a Foo.
func (d *driver) changeFoo(step int) {
	f, ok := d.randomFoo()
	if !ok || d.rng.IntN(10) == 0 {
		d.createFoo(fmt.Sprintf("foo-new-%d", step))
		return
	}
	// f is the driver's to change: the source hands out copies (Foo has a
	// DeepCopy method).
	var err error
	switch d.rng.IntN(10) {
	case 0:
		_, err = d.foos.Delete(keys.Join(f.Namespace, f.Name))
	case 1, 2, 3, 4, 5:
		f.Replicas = d.rng.IntN(6)
		_, err = d.foos.Update(f)
	default:
		f.Image = d.image()
		_, err = d.foos.Update(f)
	}
	if err == nil {
		d.fooWrites.Add(1)
	}
}

func (d *driver) createFoo(name string) {
	f := &Foo{Meta: Meta{Namespace: d.namespace(), Name: name}, Replicas: d.rng.IntN(5), Image: d.image()}
	if _, err := d.foos.Create(f); err == nil {
		d.fooKeys = append(d.fooKeys, keys.Join(f.Namespace, f.Name))
		d.fooWrites.Add(1)
	}
}

// randomFoo returns a random existing Foo, if it finds one.
func (d *driver) randomFoo() (*Foo, bool) {
	for range 5 {
		if len(d.fooKeys) == 0 {
			return nil, false
		}
		if f, ok := d.foos.Get(d.fooKeys[d.rng.IntN(len(d.fooKeys))]); ok {
			return f, true
		}
	}
	return nil, false
}

// disturbBar deletes a child, changes its image, or plants a stray child.
func (d *driver) disturbBar() {
	f, ok := d.randomFoo()
	if !ok {
		return
	}
	var err error
	if d.rng.IntN(6) == 0 {
		stray := &Bar{Meta: Meta{Namespace: f.Namespace, Name: childName(f.Name, 90+d.rng.IntN(10))}, Owner: f.Name, Image: f.Image}
		_, err = d.bars.Create(stray)
	} else {
		key := keys.Join(f.Namespace, childName(f.Name, d.rng.IntN(6)))
		del := d.rng.IntN(2) == 0 // drawn whatever the controller did, so the script depends only on the seed
		b, found := d.bars.Get(key)
		switch {
		case !found:
			return
		case del:
			_, err = d.bars.Delete(key)
		default: // b is a copy, as f is
			b.Image = "busybox:latest"
			_, err = d.bars.Update(b)
		}
	}
	if err == nil {
		d.barDisturbances.Add(1)
	}
}

// faultySource is what injectFault needs of a memsource.Source.
type faultySource interface {
	SetFaults(memsource.Faults)
	Compact()
	CloseWatches()
}

// injectFault makes one of the sources misbehave like an API server does.
func (d *driver) injectFault() {
	src := []faultySource{d.foos, d.bars}[d.rng.IntN(2)]
	switch d.rng.IntN(4) {
	case 0:
		src.CloseWatches() // a dropped connection: the reflector watches again
	case 1:
		src.Compact() // history compacted: the next watch expires and the reflector relists
		src.CloseWatches()
	case 2:
		src.SetFaults(memsource.Faults{ExpireWatches: 1}) // 410 Gone on the next watch
		src.CloseWatches()
	case 3:
		src.SetFaults(memsource.Faults{FailWatches: 1, FailLists: 1}) // a server hiccup: back off and retry
		src.CloseWatches()
	}
	d.faults.Add(1)
}

// calm clears every injected fault that has not fired yet.
func (d *driver) calm() {
	d.foos.SetFaults(memsource.Faults{})
	d.bars.SetFaults(memsource.Faults{})
}
