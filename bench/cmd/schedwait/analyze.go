package main

import (
	"cmp"
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	"golang.org/x/exp/trace"
)

// A goroutine is what the trace says of one goroutine.
type goroutine struct {
	id trace.GoID
	// name is the function that most often was the innermost frame
	// matching one of the match strings in the stacks where the goroutine
	// blocked; empty if none matched.
	name   string
	blocks map[string]int // such functions, with how often
	// ran is its time running, waited its time runnable but not running,
	// both within the window.
	ran, waited time.Duration
	// delays are the times from becoming runnable to running, for each
	// wakeup that ended within the window, in ascending order.
	delays []time.Duration
	// wokenBy counts those wakeups by the goroutine that made it runnable:
	// itself when it was preempted or yielded, trace.NoGoroutine when the
	// runtime did (a timer, the network poller).
	wokenBy map[trace.GoID]int

	runnableAt, runningAt trace.Time // when the current state began; 0 if not in it
	waker                 trace.GoID // who made it runnable, while it is
}

// analyze reads an execution trace and returns its goroutines, counting
// time from window before the trace's last event (all of it if window is
// 0). Goroutine names come from frames whose function contains one of
// match.
func analyze(r io.Reader, window time.Duration, match []string) ([]*goroutine, error) {
	tr, err := trace.NewReader(r)
	if err != nil {
		return nil, err
	}
	var events []trace.Event
	for {
		ev, err := tr.ReadEvent()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if ev.Kind() == trace.EventStateTransition && ev.StateTransition().Resource.Kind == trace.ResourceGoroutine {
			events = append(events, ev)
		}
	}
	if len(events) == 0 {
		return nil, nil
	}
	start := trace.Time(0)
	if end := events[len(events)-1].Time(); window > 0 && trace.Time(window) < end {
		start = end - trace.Time(window)
	}

	byID := map[trace.GoID]*goroutine{}
	for _, ev := range events {
		st := ev.StateTransition()
		id := st.Resource.Goroutine()
		g := byID[id]
		if g == nil {
			g = &goroutine{id: id, wokenBy: map[trace.GoID]int{}, blocks: map[string]int{}}
			byID[id] = g
		}
		from, to := st.Goroutine()
		now := ev.Time()
		if to == trace.GoWaiting {
			if f := frameMatching(st.Stack, match); f != "" {
				g.blocks[f]++
			}
		}
		if from == trace.GoRunning && g.runningAt != 0 {
			g.ran += since(g.runningAt, now, start)
			g.runningAt = 0
		}
		if from == trace.GoRunnable && g.runnableAt != 0 {
			g.waited += since(g.runnableAt, now, start)
			if to == trace.GoRunning && now > start {
				g.delays = append(g.delays, time.Duration(now-g.runnableAt))
				g.wokenBy[g.waker]++
			}
			g.runnableAt = 0
		}
		switch to {
		case trace.GoRunning:
			g.runningAt = now
		case trace.GoRunnable:
			g.runnableAt, g.waker = now, ev.Goroutine()
		}
	}
	gs := make([]*goroutine, 0, len(byID))
	for _, g := range byID {
		for f, n := range g.blocks {
			if n > g.blocks[g.name] || n == g.blocks[g.name] && f < g.name {
				g.name = f
			}
		}
		slices.Sort(g.delays)
		gs = append(gs, g)
	}
	slices.SortFunc(gs, func(a, b *goroutine) int { return cmp.Compare(b.waited, a.waited) })
	return gs, nil
}

// since returns the time from begin to end that falls after start.
func since(begin, end, start trace.Time) time.Duration {
	return time.Duration(max(end-max(begin, start), 0))
}

// frameMatching returns the function of the first frame of stack whose
// function contains one of match, without its package path, or "".
func frameMatching(stack trace.Stack, match []string) string {
	for f := range stack.Frames() {
		for _, m := range match {
			if strings.Contains(f.Func, m) {
				return f.Func[strings.LastIndex(f.Func, "/")+1:]
			}
		}
	}
	return ""
}

// percentile returns the p-th percentile (0 < p <= 100) of sorted, or 0.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p/100+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
