package memsource_test

import (
	"fmt"
	"testing"

	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// filled returns a source holding n items named o0000000, o0000001, ...
// created in key order, or shuffled.
func filled(b *testing.B, n int, shuffled bool) *memsource.Source[*item] {
	b.Helper()
	src := memsource.New(memsource.Options[*item]{})
	for i := range n {
		j := i
		if shuffled {
			j = (i * 7919) % n // a permutation when n is not a multiple of 7919
		}
		if _, err := src.Create(newItem(fmt.Sprintf("o%07d", j), i)); err != nil {
			b.Fatal(err)
		}
	}
	return src
}

func BenchmarkCreate(b *testing.B) {
	src := memsource.New(memsource.Options[*item]{})
	names := make([]string, 1<<20)
	for i := range names {
		names[i] = fmt.Sprintf("o%07d", i)
	}
	i := 0
	for b.Loop() {
		if i == len(names) {
			b.StopTimer()
			src = memsource.New(memsource.Options[*item]{})
			i = 0
			b.StartTimer()
		}
		if _, err := src.Create(&item{Namespace: "ns", Name: names[i]}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkUpdate(b *testing.B) {
	const n = 1000
	src := filled(b, n, true)
	objs := make([]*item, n)
	for i := range objs {
		objs[i] = newItem(fmt.Sprintf("o%07d", i), 0)
	}
	i := 0
	for b.Loop() {
		obj := objs[i%n]
		obj.Version = "" // the test owns obj again once its event is gone from the history
		if _, err := src.Update(obj); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkList100k(b *testing.B) {
	const n = 100_000
	src := filled(b, n, true)
	ctx := b.Context()
	report := func(b *testing.B) {
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
	}
	b.Run("unpaginated", func(b *testing.B) {
		for b.Loop() {
			res, err := src.List(ctx, reflector.ListOptions{})
			if err != nil || len(res.Items) != n {
				b.Fatal(len(res.Items), err)
			}
		}
		report(b)
	})
	b.Run("pages of 500", func(b *testing.B) {
		for b.Loop() {
			items, _, err := listAll(ctx, src, 500)
			if err != nil || len(items) != n {
				b.Fatal(len(items), err)
			}
		}
		report(b)
	})
	b.Run("after one write", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if _, err := src.Update(newItem(fmt.Sprintf("o%07d", i%n), i)); err != nil {
				b.Fatal(err)
			}
			if _, err := src.List(ctx, reflector.ListOptions{}); err != nil {
				b.Fatal(err)
			}
			i++
		}
		report(b)
	})
	for _, shuffled := range []bool{false, true} {
		b.Run(fmt.Sprint("first after bulk load, shuffled=", shuffled), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				src := filled(b, n, shuffled)
				b.StartTimer()
				if _, err := src.List(ctx, reflector.ListOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			report(b)
		})
	}
	b.Run("streaming", func(b *testing.B) {
		for b.Loop() {
			w, err := src.Watch(ctx, reflector.WatchOptions{SendInitialEvents: true})
			if err != nil {
				b.Fatal(err)
			}
			for {
				ev, err := w.Next(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if ev.InitialEventsEnd {
					break
				}
			}
			w.Stop()
		}
		report(b)
	})
}

// BenchmarkWatch measures how fast writes reach watchers: each iteration
// makes 1000 updates and waits until every watcher has received them.
func BenchmarkWatch(b *testing.B) {
	const batch = 1000
	for _, watchers := range []int{1, 10} {
		b.Run(fmt.Sprint("watchers=", watchers), func(b *testing.B) {
			src := filled(b, 100, false)
			start := src.ResourceVersion()
			var ws []reflector.Watch[*item]
			for range watchers {
				w, err := src.Watch(b.Context(), reflector.WatchOptions{ResourceVersion: start})
				if err != nil {
					b.Fatal(err)
				}
				defer w.Stop()
				ws = append(ws, w)
			}
			i := 0
			for b.Loop() {
				for range batch {
					if _, err := src.Update(newItem(fmt.Sprintf("o%07d", i%100), i)); err != nil {
						b.Fatal(err)
					}
					i++
				}
				for _, w := range ws {
					for range batch {
						if ev := next(b, w); ev.Type != reflector.Updated {
							b.Fatal(describe(ev))
						}
					}
				}
			}
			b.ReportMetric(float64(batch*watchers)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
