package queue_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/time/rate"

	"github.com/typedcache/typedcache/queue"
)

// whens calls l.When(item) n times.
func whens(l queue.TypedRateLimiter[string], item string, n int) []time.Duration {
	var got []time.Duration
	for range n {
		got = append(got, l.When(item))
	}
	return got
}

func TestExponentialFailureRateLimiter(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name      string
		base, max time.Duration
		want      []time.Duration
	}{
		{"doubles up to the cap", ms, 10 * ms, []time.Duration{ms, 2 * ms, 4 * ms, 8 * ms, 10 * ms, 10 * ms}},
		{"max below base caps everything", 10 * ms, ms, []time.Duration{ms, ms}},
		{"zero base never delays", 0, time.Second, []time.Duration{0, 0, 0}},
		{"negative base is zero", -ms, time.Second, []time.Duration{0, 0}},
		{"negative max is zero", ms, -time.Second, []time.Duration{0, 0}},
		{"huge base does not overflow", math.MaxInt64 / 2, math.MaxInt64, []time.Duration{math.MaxInt64 / 2, math.MaxInt64 - 1, math.MaxInt64, math.MaxInt64}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := queue.NewTypedItemExponentialFailureRateLimiter[string](tt.base, tt.max)
			if diff := cmp.Diff(tt.want, whens(l, "a", len(tt.want))); diff != "" {
				t.Errorf("When(a) sequence mismatch (-want +got):\n%s", diff)
			}
			if n := l.NumRequeues("a"); n != len(tt.want) {
				t.Errorf("NumRequeues(a) = %d, want %d", n, len(tt.want))
			}
			if n := l.NumRequeues("b"); n != 0 {
				t.Errorf("NumRequeues(b) = %d, want 0", n)
			}
			l.Forget("a")
			if n := l.NumRequeues("a"); n != 0 {
				t.Errorf("NumRequeues(a) after Forget = %d, want 0", n)
			}
		})
	}
}

// The controller default reaches its 1000s cap on the 19th consecutive
// failure (5ms·2^18 ≈ 1311s), as in client-go, and stays there however many
// failures follow.
func TestExponentialCap(t *testing.T) {
	l := queue.DefaultTypedControllerRateLimiter[string]()
	got := whens(l, "a", 200)
	if got[17] != 5*time.Millisecond<<17 || got[18] != 1000*time.Second || got[199] != 1000*time.Second {
		t.Errorf("When #18, #19, #200 = %v, %v, %v, want %v, 1000s, 1000s", got[17], got[18], got[199], 5*time.Millisecond<<17)
	}
	for n := range 200 {
		if d := queue.Exponential(time.Nanosecond, math.MaxInt64, n); d <= 0 {
			t.Fatalf("exponential(1ns, max, %d) = %v, want > 0", n, d)
		}
	}
}

func TestFastSlowRateLimiter(t *testing.T) {
	tests := []struct {
		name       string
		fast, slow time.Duration
		attempts   int
		want       []time.Duration
	}{
		{"fast then slow", time.Millisecond, time.Second, 2, []time.Duration{time.Millisecond, time.Millisecond, time.Second, time.Second}},
		{"no fast attempts", time.Millisecond, time.Second, 0, []time.Duration{time.Second}},
		{"negative values are zero", -time.Millisecond, -time.Second, -3, []time.Duration{0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := queue.NewTypedItemFastSlowRateLimiter[string](tt.fast, tt.slow, tt.attempts)
			if diff := cmp.Diff(tt.want, whens(l, "a", len(tt.want))); diff != "" {
				t.Errorf("When(a) sequence mismatch (-want +got):\n%s", diff)
			}
			if n := l.NumRequeues("a"); n != len(tt.want) {
				t.Errorf("NumRequeues(a) = %d, want %d", n, len(tt.want))
			}
			l.Forget("a")
			if d := l.When("a"); d != tt.want[0] {
				t.Errorf("When(a) after Forget = %v, want %v", d, tt.want[0])
			}
		})
	}
}

func TestBucketRateLimiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := queue.NewTypedBucketRateLimiter[string](10, 3)
		// The bucket is shared by all items: 3 free tokens, then 100ms apart.
		got := []time.Duration{l.When("a"), l.When("b"), l.When("c"), l.When("d"), l.When("a")}
		want := []time.Duration{0, 0, 0, 100 * time.Millisecond, 200 * time.Millisecond}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("When sequence mismatch (-want +got):\n%s", diff)
		}
		l.Forget("a") // returns no token
		if d := l.When("a"); d != 300*time.Millisecond {
			t.Errorf("When(a) after Forget = %v, want 300ms", d)
		}
		if n := l.NumRequeues("a"); n != 0 {
			t.Errorf("NumRequeues(a) = %d, want 0", n)
		}
		time.Sleep(time.Second)
		if d := l.When("a"); d != 0 {
			t.Errorf("When(a) after refill = %v, want 0", d)
		}
	})
}

func TestBucketRateLimiterEdges(t *testing.T) {
	var none queue.TypedBucketRateLimiter[string]
	if d := none.When("a"); d != 0 {
		t.Errorf("nil Limiter: When = %v, want 0", d)
	}
	zeroBurst := queue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(10, 0)}
	if d := zeroBurst.When("a"); d != rate.InfDuration {
		t.Errorf("burst 0: When = %v, want rate.InfDuration", d)
	}
	clamped := queue.NewTypedBucketRateLimiter[string](10, 0)
	if d := clamped.When("a"); d != 0 {
		t.Errorf("NewTypedBucketRateLimiter(10, 0): When = %v, want 0", d)
	}
}

func TestMaxOfRateLimiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		exp := queue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second)
		bucket := queue.NewTypedBucketRateLimiter[string](1, 1)
		l := queue.NewTypedMaxOfRateLimiter(exp, nil, bucket)
		// The bucket spends a token on every call, even while the
		// exponential delay is longer.
		want := []time.Duration{time.Millisecond, time.Second, 2 * time.Second}
		if diff := cmp.Diff(want, whens(l, "a", 3)); diff != "" {
			t.Errorf("When(a) sequence mismatch (-want +got):\n%s", diff)
		}
		if n := l.NumRequeues("a"); n != 3 {
			t.Errorf("NumRequeues(a) = %d, want 3", n)
		}
		l.Forget("a")
		if n := l.NumRequeues("a"); n != 0 {
			t.Errorf("NumRequeues(a) after Forget = %d, want 0", n)
		}
		if d := queue.NewTypedMaxOfRateLimiter[string]().When("a"); d != 0 {
			t.Errorf("empty MaxOf: When = %v, want 0", d)
		}
	})
}

func TestWithMaxWaitRateLimiter(t *testing.T) {
	exp := queue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Hour)
	l := queue.NewTypedWithMaxWaitRateLimiter(exp, 3*time.Second)
	want := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second}
	if diff := cmp.Diff(want, whens(l, "a", 4)); diff != "" {
		t.Errorf("When(a) sequence mismatch (-want +got):\n%s", diff)
	}
	if n := l.NumRequeues("a"); n != 4 {
		t.Errorf("NumRequeues(a) = %d, want 4", n)
	}
	l.Forget("a")
	if n := exp.NumRequeues("a"); n != 0 {
		t.Errorf("wrapped NumRequeues(a) after Forget = %d, want 0", n)
	}
	if d := queue.NewTypedWithMaxWaitRateLimiter(exp, -time.Second).When("a"); d != 0 {
		t.Errorf("negative max wait: When = %v, want 0", d)
	}
	if d := queue.NewTypedWithMaxWaitRateLimiter[string](nil, time.Second).When("a"); d != 5*time.Millisecond {
		t.Errorf("nil limiter (controller default): When = %v, want 5ms", d)
	}
}

func TestDefaultItemBasedRateLimiter(t *testing.T) {
	l := queue.DefaultTypedItemBasedRateLimiter[int]()
	if d1, d2 := l.When(1), l.When(1); d1 != time.Millisecond || d2 != 2*time.Millisecond {
		t.Errorf("When(1) twice = %v, %v, want 1ms, 2ms", d1, d2)
	}
}

// The per-item limiters keep exact counts for many items at once, through
// the growth, deletions and release of their tables.
func TestItemLimitersTrackManyItems(t *testing.T) {
	const items, ms = 700, time.Millisecond
	exp := queue.NewTypedItemExponentialFailureRateLimiter[int](ms, time.Hour)
	fastSlow := queue.NewTypedItemFastSlowRateLimiter[int](ms, time.Second, 2)
	model := make(map[int]int)
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 3 {
		for range 5000 {
			item := rng.IntN(items)
			if rng.IntN(4) == 0 {
				exp.Forget(item)
				fastSlow.Forget(item)
				delete(model, item)
				continue
			}
			n := model[item]
			model[item]++
			if got, want := exp.When(item), min(ms<<n, time.Hour); got != want {
				t.Fatalf("round %d: exponential When(%d) after %d failures = %v, want %v", round, item, n, got, want)
			}
			want := time.Second
			if n < 2 {
				want = ms
			}
			if got := fastSlow.When(item); got != want {
				t.Fatalf("round %d: fast-slow When(%d) after %d failures = %v, want %v", round, item, n, got, want)
			}
		}
		for item := range items {
			if got, want := exp.NumRequeues(item), model[item]; got != want {
				t.Errorf("round %d: exponential NumRequeues(%d) = %d, want %d", round, item, got, want)
			}
			if got, want := fastSlow.NumRequeues(item), model[item]; got != want {
				t.Errorf("round %d: fast-slow NumRequeues(%d) = %d, want %d", round, item, got, want)
			}
		}
		for item := range items {
			exp.Forget(item)
			fastSlow.Forget(item)
		}
		clear(model)
		for item := range items {
			if exp.NumRequeues(item) != 0 || fastSlow.NumRequeues(item) != 0 {
				t.Fatalf("round %d: NumRequeues(%d) after Forget = %d, %d, want 0", round, item, exp.NumRequeues(item), fastSlow.NumRequeues(item))
			}
		}
	}
}

// constLimiter always delays by d. It is not one of the package's limiters,
// so queues and combining limiters call its When.
type constLimiter time.Duration

func (l constLimiter) When(string) time.Duration { return time.Duration(l) }
func (constLimiter) Forget(string)               {}
func (constLimiter) NumRequeues(string) int      { return 0 }

// AddRateLimited queues items when the limiter says, whether the limiter,
// or one it combines, is one of the package's or another implementation.
func TestAddRateLimitedLimiterKinds(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name    string
		limiter func() queue.TypedRateLimiter[string]
		want    []time.Duration // ready times of a and b, added at once
	}{
		{"other implementation", func() queue.TypedRateLimiter[string] { return constLimiter(3 * time.Second) }, []time.Duration{3 * time.Second, 3 * time.Second}},
		{"bucket", func() queue.TypedRateLimiter[string] { return queue.NewTypedBucketRateLimiter[string](1, 1) }, []time.Duration{0, time.Second}},
		{"max of other and bucket", func() queue.TypedRateLimiter[string] {
			return queue.NewTypedMaxOfRateLimiter(constLimiter(ms), queue.NewTypedBucketRateLimiter[string](1, 1))
		}, []time.Duration{ms, time.Second}},
		{"max wait over other", func() queue.TypedRateLimiter[string] {
			return queue.NewTypedWithMaxWaitRateLimiter(constLimiter(time.Hour), 2*time.Second)
		}, []time.Duration{2 * time.Second, 2 * time.Second}},
		{"max wait over bucket", func() queue.TypedRateLimiter[string] {
			return queue.NewTypedWithMaxWaitRateLimiter(queue.NewTypedBucketRateLimiter[string](1, 1), 500*ms)
		}, []time.Duration{0, 500 * ms}},
		{"controller default", func() queue.TypedRateLimiter[string] { return queue.DefaultTypedControllerRateLimiter[string]() }, []time.Duration{5 * ms, 5 * ms}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := queue.NewTypedRateLimitingQueue(tt.limiter(), queue.Options{})
				defer q.ShutDown()
				start := time.Now()
				q.AddRateLimited("a")
				q.AddRateLimited("b")
				var got []time.Duration
				for range 2 {
					item, err := q.Get(context.Background())
					if err != nil {
						t.Fatalf("Get() error = %v", err)
					}
					got = append(got, time.Since(start))
					q.Done(item)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("ready times of a and b mismatch (-want +got):\n%s", diff)
				}
			})
		})
	}
}
