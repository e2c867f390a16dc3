package reflector_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/typedcache/typedcache/reflector"
)

// obj is the test object type. A nil *obj panics in its methods, like a
// nil Kubernetes object.
type obj struct {
	ns, name, rv string
}

func (o *obj) GetNamespace() string       { return o.ns }
func (o *obj) GetName() string            { return o.name }
func (o *obj) GetResourceVersion() string { return o.rv }

// o returns an object named name at version rv.
func o(name, rv string) *obj { return &obj{name: name, rv: rv} }

type event = reflector.Event[*obj]

func added(name, rv string) event    { return event{Type: reflector.Added, Object: o(name, rv)} }
func modified(name, rv string) event { return event{Type: reflector.Updated, Object: o(name, rv)} }
func deleted(name, rv string) event  { return event{Type: reflector.Deleted, Object: o(name, rv)} }
func bookmark(rv string) event       { return event{Type: reflector.Bookmark, ResourceVersion: rv} }
func endBookmark(rv string) event {
	return event{Type: reflector.Bookmark, ResourceVersion: rv, InitialEventsEnd: true}
}

// errorType marks, in a script, a step at which the stream fails with an
// error instead of delivering an event; errorEvent writes such a step.
const errorType reflector.EventType = 200

// scriptedErrors holds the errors of errorEvent steps, by index; the
// step's ResourceVersion is the index.
var scriptedErrors struct {
	sync.Mutex
	errs []error
}

// errorEvent scripts a failure of the stream with err.
func errorEvent(err error) event {
	scriptedErrors.Lock()
	defer scriptedErrors.Unlock()
	scriptedErrors.errs = append(scriptedErrors.errs, err)
	return event{Type: errorType, ResourceVersion: strconv.Itoa(len(scriptedErrors.errs) - 1)}
}

// scriptedError returns the error of an errorEvent step.
func scriptedError(ev event) error {
	i, _ := strconv.Atoi(ev.ResourceVersion)
	scriptedErrors.Lock()
	defer scriptedErrors.Unlock()
	return scriptedErrors.errs[i]
}

// errBoom is a failure with no meaning to the reflector.
var errBoom = errors.New("boom")

// fakeWatch is a Watch whose events the test sends: Next takes them from in
// until in is closed (the source ends the watch), an errorEvent step fails
// the stream, or Stop is called.
type fakeWatch struct {
	in      chan event
	stopped chan struct{}
	once    sync.Once
	over    error // set by Next when the stream ends; Next's goroutine only
}

// newWatch returns a watch that first delivers evs, then, if closeAfter,
// ends; otherwise it stays open for send and end.
func newWatch(closeAfter bool, evs ...event) *fakeWatch {
	w := &fakeWatch{
		in:      make(chan event, len(evs)),
		stopped: make(chan struct{}),
	}
	for _, ev := range evs {
		w.in <- ev
	}
	if closeAfter {
		close(w.in)
	}
	return w
}

func (w *fakeWatch) Next(ctx context.Context) (event, error) {
	if w.over != nil {
		return event{}, w.over
	}
	select {
	case ev, ok := <-w.in:
		switch {
		case !ok:
			w.over = io.EOF
		case ev.Type == errorType:
			w.over = scriptedError(ev)
		default:
			return ev, nil
		}
	case <-w.stopped:
		w.over = io.EOF
	case <-ctx.Done():
		return event{}, ctx.Err()
	}
	return event{}, w.over
}

func (w *fakeWatch) Stop() { w.once.Do(func() { close(w.stopped) }) }

// send delivers evs to the reflector; the watch must still be open.
func (w *fakeWatch) send(t *testing.T, evs ...event) {
	t.Helper()
	for _, ev := range evs {
		select {
		case w.in <- ev:
		case <-w.stopped:
			t.Fatalf("send(%v): watch already stopped", ev.Type)
		}
	}
}

// end makes the source close the watch.
func (w *fakeWatch) end() { close(w.in) }

// isStopped reports whether the reflector stopped the watch.
func (w *fakeWatch) isStopped() bool {
	select {
	case <-w.stopped:
		return true
	default:
		return false
	}
}

// listReply scripts one List call. A blocking reply waits for the call's
// context to end.
type listReply struct {
	res   reflector.ListResult[*obj]
	err   error
	block bool
}

// watchReply scripts one Watch call: an error, or a watch that delivers
// evs and then ends if closed, or stays open.
type watchReply struct {
	evs    []event
	closed bool
	err    error
}

// openWatch scripts a watch that delivers evs and stays open.
func openWatch(evs ...event) watchReply { return watchReply{evs: evs} }

// closedWatch scripts a watch that delivers evs and ends.
func closedWatch(evs ...event) watchReply { return watchReply{evs: evs, closed: true} }

// failedWatch scripts a Watch call that fails with err.
func failedWatch(err error) watchReply { return watchReply{err: err} }

// list builds a list reply with the named objects at version rv.
func list(rv string, names ...string) listReply {
	items := make([]*obj, len(names))
	for i, n := range names {
		items[i] = o(n, rv)
	}
	return listReply{res: reflector.ListResult[*obj]{Items: items, ResourceVersion: rv}}
}

// page is list with a continue token.
func page(rv, cont string, names ...string) listReply {
	r := list(rv, names...)
	r.res.Continue = cont
	return r
}

// fakeLW is a scripted ListerWatcher that records every call. Lists answer
// from lists in order, repeating the last; watches answer from watches in
// order, then with watches that stay open and silent.
type fakeLW struct {
	caps  reflector.Capabilities
	start time.Time

	mu      sync.Mutex
	calls   []string
	at      []time.Duration
	lists   []listReply
	watches []watchReply
	nList   int
	nWatch  int
	opened  []*fakeWatch
	watchOp []reflector.WatchOptions
}

func newLW(caps reflector.Capabilities) *fakeLW {
	return &fakeLW{caps: caps, start: time.Now()}
}

func (f *fakeLW) record(call string) {
	f.calls = append(f.calls, call)
	f.at = append(f.at, time.Since(f.start))
}

func (f *fakeLW) List(ctx context.Context, opts reflector.ListOptions) (reflector.ListResult[*obj], error) {
	f.mu.Lock()
	call := fmt.Sprintf("List(rv=%q limit=%d continue=%q", opts.ResourceVersion, opts.Limit, opts.Continue)
	if opts.ReadOnly {
		call += " readonly"
	}
	f.record(call + ")")
	if len(f.lists) == 0 {
		f.mu.Unlock()
		return reflector.ListResult[*obj]{}, errors.New("fake: no list scripted")
	}
	r := f.lists[min(f.nList, len(f.lists)-1)]
	f.nList++
	f.mu.Unlock()
	if r.block {
		<-ctx.Done()
		return reflector.ListResult[*obj]{}, ctx.Err()
	}
	return r.res, r.err
}

func (f *fakeLW) Watch(ctx context.Context, opts reflector.WatchOptions) (reflector.Watch[*obj], error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	call := fmt.Sprintf("Watch(rv=%q", opts.ResourceVersion)
	if opts.AllowBookmarks {
		call += " bookmarks"
	}
	if opts.SendInitialEvents {
		call += " initial"
	}
	if opts.ReadOnly {
		call += " readonly"
	}
	f.record(call + ")")
	f.watchOp = append(f.watchOp, opts)
	var r watchReply
	if f.nWatch < len(f.watches) {
		r = f.watches[f.nWatch]
	}
	f.nWatch++
	if r.err != nil {
		return nil, r.err
	}
	w := newWatch(r.closed, r.evs...)
	f.opened = append(f.opened, w)
	return w, nil
}

// watch returns the i-th watch the fake opened.
func (f *fakeLW) watch(t *testing.T, i int) *fakeWatch {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if i >= len(f.opened) {
		t.Fatalf("watch %d requested, only %d opened", i, len(f.opened))
	}
	return f.opened[i]
}

func (f *fakeLW) Capabilities() reflector.Capabilities { return f.caps }

// Calls returns the calls so far.
func (f *fakeLW) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// Times returns when each call happened, from the fake's creation.
func (f *fakeLW) Times() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.at...)
}

// WatchOptions returns the options of every Watch call.
func (f *fakeLW) WatchOptions() []reflector.WatchOptions {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]reflector.WatchOptions(nil), f.watchOp...)
}

// allStopped reports whether the reflector stopped every watch it got.
func (f *fakeLW) allStopped() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, w := range f.opened {
		if !w.isStopped() {
			return false
		}
	}
	return true
}

// recStore records the calls it receives, and fails those for which fail
// returns an error.
type recStore struct {
	mu   sync.Mutex
	ops  []string
	fail func(op string) error
}

func (s *recStore) do(op string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = append(s.ops, op)
	if s.fail != nil {
		return s.fail(op)
	}
	return nil
}

func (s *recStore) Add(x *obj) error    { return s.do("Add " + x.name + "@" + x.rv) }
func (s *recStore) Update(x *obj) error { return s.do("Update " + x.name + "@" + x.rv) }
func (s *recStore) Delete(x *obj) error { return s.do("Delete " + x.name + "@" + x.rv) }
func (s *recStore) Resync() error       { return s.do("Resync") }
func (s *recStore) Replace(items []*obj, rv string) error {
	names := make([]string, len(items))
	for i, x := range items {
		names[i] = x.name + "@" + x.rv
	}
	return s.do("Replace [" + strings.Join(names, " ") + "]@" + rv)
}

// Ops returns the calls so far.
func (s *recStore) Ops() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ops...)
}

// discardLogger keeps tests quiet.
var discardLogger = slog.New(slog.DiscardHandler)

// run is a reflector running in the current synctest bubble.
type run struct {
	r      *reflector.Reflector[*obj]
	cancel context.CancelFunc
	done   chan struct{}

	mu   sync.Mutex
	errs []error
}

// start runs a reflector over lw and store, after applying setup to it;
// opts.ErrorHandler is replaced by one that records errors. The test must
// call stop.
func start(t *testing.T, lw reflector.ListerWatcher[*obj], store reflector.Store[*obj], opts reflector.Options, setup ...func(*reflector.Reflector[*obj])) *run {
	t.Helper()
	rn := &run{done: make(chan struct{})}
	if opts.Logger == nil {
		opts.Logger = discardLogger
	}
	opts.ErrorHandler = func(_ context.Context, err error) {
		rn.mu.Lock()
		rn.errs = append(rn.errs, err)
		rn.mu.Unlock()
	}
	rn.r = reflector.New(lw, store, opts)
	for _, f := range setup {
		f(rn.r)
	}
	ctx, cancel := context.WithCancel(t.Context())
	rn.cancel = cancel
	go func() {
		defer close(rn.done)
		rn.r.Run(ctx)
	}()
	return rn
}

// stop cancels the reflector and waits for Run to return.
func (rn *run) stop() {
	rn.cancel()
	<-rn.done
}

// Errs returns the errors reported so far.
func (rn *run) Errs() []error {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	return append([]error(nil), rn.errs...)
}
