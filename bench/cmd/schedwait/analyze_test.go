package main

import (
	"bytes"
	"runtime/trace"
	"strings"
	"testing"
	"time"
)

// pingPong hands n values to a consumer goroutine and waits for each to
// be acknowledged. Each of those 2n exchanges over an unbuffered channel
// wakes whichever side got there first, so the two goroutines wake each
// other at least 2n times in all (how the wakeups split depends on
// scheduling).
func pingPong(n int) {
	values, acks := make(chan int), make(chan struct{})
	go consume(values, acks)
	for i := range n {
		values <- i
		<-acks
	}
	close(values)
	<-acks
}

// consume acknowledges every value it receives, and the end of values.
func consume(values <-chan int, acks chan<- struct{}) {
	for range values {
		acks <- struct{}{}
	}
	acks <- struct{}{}
}

func TestAnalyzeFindsWhoWakesWhom(t *testing.T) {
	if trace.IsEnabled() {
		t.Skip("a trace is already being recorded (go test -trace)")
	}
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	const n = 200
	pingPong(n)
	trace.Stop()

	gs, err := analyze(&buf, 0, []string{"schedwait."})
	if err != nil {
		t.Fatal(err)
	}
	var consumer, producer *goroutine
	for _, g := range gs {
		switch g.name {
		case "schedwait.consume":
			consumer = g
		case "schedwait.pingPong":
			producer = g
		}
	}
	if consumer == nil || producer == nil {
		t.Fatalf("goroutines named %v, want schedwait.consume and schedwait.pingPong", names(gs))
	}
	byConsumer, byProducer := producer.wokenBy[consumer.id], consumer.wokenBy[producer.id]
	if byConsumer+byProducer < 2*n {
		t.Errorf("producer woken %d times by the consumer and consumer %d times by the producer, want at least %d in all", byConsumer, byProducer, 2*n)
	}
	if got := len(consumer.delays) + len(producer.delays); got < 2*n {
		t.Errorf("%d waits after a wakeup, want at least %d", got, 2*n)
	}
	if consumer.ran <= 0 || producer.ran <= 0 {
		t.Errorf("ran %v and %v, want time for both", consumer.ran, producer.ran)
	}

	var out strings.Builder
	printTable(&out, gs, 1)
	table := out.String()
	for _, want := range []string{"schedwait.consume ", "schedwait.pingPong "} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if !strings.Contains(table, "schedwait.consume ×") && !strings.Contains(table, "schedwait.pingPong ×") {
		t.Errorf("table names neither goroutine as the other's waker:\n%s", table)
	}
}

func names(gs []*goroutine) []string {
	var ns []string
	for _, g := range gs {
		ns = append(ns, nameOf(g))
	}
	return ns
}

func TestPercentile(t *testing.T) {
	for _, tc := range []struct {
		n    int
		p    float64
		want int
	}{{0, 50, 0}, {1, 99, 1}, {10, 50, 5}, {10, 99, 10}, {100, 99, 99}, {100, 100, 100}} {
		sorted := make([]time.Duration, tc.n)
		for i := range sorted {
			sorted[i] = time.Duration(i + 1)
		}
		if got := percentile(sorted, tc.p); got != time.Duration(tc.want) {
			t.Errorf("percentile(1..%d, %v) = %v, want %v", tc.n, tc.p, got, tc.want)
		}
	}
}
