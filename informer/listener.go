package informer

import "github.com/typedcache/typedcache/internal/fanout"

// newListener returns the listener of a registration named name: it
// buffers notifications as buf says, calls h for each, and reports h's
// panics to the error handler as *HandlerPanicError.
func (inf *Informer[T]) newListener(h Handler[T], name string, buf BufferOptions) *fanout.Listener[T] {
	opts := fanout.Options{Limit: buf.Size, Overflow: fanout.Block, Name: name}
	if buf.Overflow == Coalesce {
		opts.Overflow = fanout.Coalesce
	}
	report := func(p fanout.Panic) {
		inf.reportError(&HandlerPanicError{Handler: name, Method: method(p.Kind), Key: p.Key, Value: p.Value, Stack: p.Stack})
	}
	return fanout.NewListener(deliverTo(h), report, opts)
}

// deliverTo returns the delivery function that calls h's method for a
// notification.
func deliverTo[T any](h Handler[T]) func(*fanout.Notification[T]) {
	return func(n *fanout.Notification[T]) {
		switch n.Kind {
		case fanout.Add:
			h.OnAdd(n.Obj, n.Initial)
		case fanout.Update:
			h.OnUpdate(n.Old, n.Obj)
		case fanout.Delete:
			h.OnDelete(Deleted[T]{Key: n.Key, Object: n.Obj, Inferred: n.Inferred})
		}
	}
}

// method names the Handler method a notification of kind k calls.
func method(k fanout.Kind) string {
	switch k {
	case fanout.Add:
		return "OnAdd"
	case fanout.Update:
		return "OnUpdate"
	}
	return "OnDelete"
}
