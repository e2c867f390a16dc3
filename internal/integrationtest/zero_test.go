package integrationtest

import (
	"strings"
	"testing"

	"github.com/typedcache/typedcache/deltafifo"
	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// Every exported type that needs its constructor (or, for a Registration,
// AddEventHandler) fails at first use with an error naming it, instead of a
// nil dereference, and its reads find it empty. (The zero queue, whose
// methods return no error, panics with such a message: queue's
// TestZeroQueue. A zero Factory works: informer's TestFactoryZeroValue. The
// zero Indexer and Lister: indexer's TestZeroIndexer and TestZeroLister.)
func TestZeroValues(t *testing.T) {
	ctx := t.Context()
	obj := &thing{Namespace: "ns", Name: "a"}
	noop := func(string, deltafifo.Deltas[*thing], bool) error { return nil }
	tests := []struct {
		name, constructor string
		call              func() error
	}{
		{"DeltaFIFO.Add", "deltafifo.New", func() error { var f deltafifo.DeltaFIFO[*thing]; return f.Add(obj) }},
		{"DeltaFIFO.Delete", "deltafifo.New", func() error { var f deltafifo.DeltaFIFO[*thing]; return f.Delete(obj) }},
		{"DeltaFIFO.Replace", "deltafifo.New", func() error { var f deltafifo.DeltaFIFO[*thing]; return f.Replace(nil, "1") }},
		{"DeltaFIFO.Resync", "deltafifo.New", func() error { var f deltafifo.DeltaFIFO[*thing]; return f.Resync() }},
		{"DeltaFIFO.Pop", "deltafifo.New", func() error { var f deltafifo.DeltaFIFO[*thing]; return f.Pop(ctx, noop) }},
		{"DeltaFIFO.PopBatch", "deltafifo.New", func() error {
			var f deltafifo.DeltaFIFO[*thing]
			return f.PopBatch(ctx, 1, func([]deltafifo.Item[*thing]) error { return nil })
		}},
		{"Reflector.Run", "reflector.New", func() error { var r reflector.Reflector[*thing]; return r.Run(ctx) }},
		{"Source.Create", "memsource.New", func() error { var s memsource.Source[*thing]; _, err := s.Create(obj); return err }},
		{"Source.Update", "memsource.New", func() error { var s memsource.Source[*thing]; _, err := s.Update(obj); return err }},
		{"Source.Delete", "memsource.New", func() error { var s memsource.Source[*thing]; _, err := s.Delete("ns/a"); return err }},
		{"Source.List", "memsource.New", func() error {
			var s memsource.Source[*thing]
			_, err := s.List(ctx, reflector.ListOptions{})
			return err
		}},
		{"Source.Watch", "memsource.New", func() error {
			var s memsource.Source[*thing]
			_, err := s.Watch(ctx, reflector.WatchOptions{})
			return err
		}},
		{"Informer.Run", "informer.New", func() error { var i informer.Informer[*thing]; return i.Run(ctx) }},
		{"Informer.WaitForSync", "informer.New", func() error { var i informer.Informer[*thing]; return i.WaitForSync(ctx) }},
		{"Informer.AddEventHandler", "informer.New", func() error {
			var i informer.Informer[*thing]
			_, err := i.AddEventHandler(informer.HandlerFuncs[*thing]{})
			return err
		}},
		{"Informer.AddIndexers", "informer.New", func() error {
			var i informer.Informer[*thing]
			return i.AddIndexers(indexer.Indexers[*thing]{ownerIndex: ownerOf})
		}},
		{"Registration.WaitForSync", "AddEventHandler", func() error {
			var r informer.Registration[*thing]
			return r.WaitForSync(ctx)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); err == nil || !strings.Contains(err.Error(), tt.constructor) {
				t.Errorf("%s on a zero value = %v, want an error naming %s", tt.name, err, tt.constructor)
			}
		})
	}

	var inf informer.Informer[*thing]
	var src memsource.Source[*thing]
	var fifo deltafifo.DeltaFIFO[*thing]
	var reg informer.Registration[*thing]
	done := false
	select {
	case <-reg.Done():
		done = true
	default:
	}
	reads := []struct {
		name  string
		empty bool
	}{
		{"Informer.HasSynced", !inf.HasSynced()},
		{"Informer.Cache().Len", inf.Cache().Len() == 0},
		{"Informer.Lister().List", len(inf.Lister().List()) == 0},
		{"Informer.Stats", inf.Stats().Cached == 0 && inf.Stats().Handlers == nil},
		{"Source.Len", src.Len() == 0},
		{"DeltaFIFO.Len", fifo.Len() == 0 && len(fifo.ListKeys()) == 0},
		{"Registration", !reg.HasSynced() && reg.Stats() == informer.HandlerStats{} && done && reg.Name() == ""},
	}
	for _, r := range reads {
		if !r.empty {
			t.Errorf("%s on a zero value is not empty", r.name)
		}
	}
}
