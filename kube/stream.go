package kube

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedcache/typedcache/reflector"
)

// streamBuffer is how many decoded events a direct watch holds for its
// reader: its goroutine decodes ahead while the reflector applies
// events, and hands them over without waking the reader for each.
const streamBuffer = 64

// directWatch is a watch whose response the direct path reads and
// decodes itself. Its goroutine reads the stream, decodes each event and
// queues it for Next; Next returns queued events in order. The goroutine
// ends at the end of the stream, when it fails, on Stop, or when the
// context of the request ends.
type directWatch[T Object] struct {
	body   io.ReadCloser
	name   string
	events chan directResult[T]
	stop   chan struct{} // closed by Stop
	once   sync.Once
	// end, once set, is what every later Next returns. Only Next's
	// goroutine touches it.
	end error
}

type directResult[T Object] struct {
	ev  reflector.Event[T]
	err error
}

// newDirectWatch starts reading body, a watch stream of o's objects.
func newDirectWatch[T Object](ctx context.Context, o *objectType[T], body io.ReadCloser, name string) *directWatch[T] {
	w := &directWatch[T]{body: body, name: name, events: make(chan directResult[T], streamBuffer), stop: make(chan struct{})}
	go w.run(ctx, o)
	return w
}

// run reads the stream until it ends, queueing each event.
func (w *directWatch[T]) run(ctx context.Context, o *objectType[T]) {
	defer close(w.events)
	r, done, err := inflated(bufio.NewReaderSize(w.body, 32<<10))
	defer done()
	var next func() (decodedEvent[T], error)
	var first []byte
	if err == nil {
		first, err = r.Peek(1)
	}
	switch {
	case err != nil:
	case first[0] == '{':
		next = newJSONStream(o, r).next
	case first[0] == 0: // the high byte of a protobuf frame's length
		next = newProtobufStream(o, r).next
	default:
		err = fmt.Errorf("%w: a watch stream that is neither JSON nor protobuf", errMalformed)
	}
	for {
		var res directResult[T]
		if err == nil {
			var d decodedEvent[T]
			d, err = next()
			if err == nil {
				res.ev, res.err = convertDecoded(d, w.name)
			}
		}
		if err != nil {
			res.err = w.streamEnd(ctx, err)
		}
		select {
		case w.events <- res: // the common case: the buffer has room
		default:
			select {
			case w.events <- res:
			case <-w.stop:
				return
			}
		}
		if res.err != nil {
			return
		}
	}
}

// streamEnd returns what Next reports for a stream that failed with err:
// io.EOF for its normal end, a connection the server or the request's
// context closed, or a Stop; otherwise the failure, as client-go's
// watches report it.
func (w *directWatch[T]) streamEnd(ctx context.Context, err error) error {
	select {
	case <-w.stop:
		return io.EOF
	default:
	}
	if ctx.Err() != nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		utilnet.IsProbableEOF(err) || utilnet.IsTimeout(err) {
		return io.EOF
	}
	return fmt.Errorf("kube: watch %s: unable to decode an event from the watch stream: %w", w.name, err)
}

// Next returns the next event. A watch.Error event, an object that is not
// a T and an unknown event type end the stream with an error; the end of
// the stream ends it with io.EOF.
func (w *directWatch[T]) Next(ctx context.Context) (reflector.Event[T], error) {
	if w.end != nil {
		return reflector.Event[T]{}, w.end
	}
	var r directResult[T]
	var ok bool
	select {
	case r, ok = <-w.events: // the common case under load: an event is ready
	default:
		select {
		case r, ok = <-w.events:
		case <-ctx.Done():
			return reflector.Event[T]{}, ctx.Err()
		}
	}
	switch {
	case !ok:
		r.err = io.EOF
	case r.err == nil:
		return r.ev, nil
	}
	w.end = r.err
	w.Stop()
	return reflector.Event[T]{}, r.err
}

// Stop ends the watch: it closes the response, which ends the goroutine.
// It is idempotent and safe from any goroutine.
func (w *directWatch[T]) Stop() {
	w.once.Do(func() {
		close(w.stop)
		w.body.Close()
	})
}

// convertDecoded turns a decoded event into ours, as convert does for
// client-go's events.
func convertDecoded[T Object](d decodedEvent[T], name string) (reflector.Event[T], error) {
	switch d.Type {
	case watch.Bookmark:
		return bookmark[T](d.Object, name)
	case watch.Error:
		return reflector.Event[T]{}, watchError(name, d.Status)
	}
	t, err := objectEventType(d.Type, name)
	if err != nil {
		return reflector.Event[T]{}, err
	}
	return reflector.Event[T]{Type: t, Object: d.Object}, nil
}
