package fanout

// segmentLen is the number of notifications in one segment of a handler's
// buffer: 10 KB for a pointer type.
const segmentLen = 256

// maxSpares is the largest number of delivered segments a listener keeps
// for reuse (640 KB for a pointer type, 16384 notifications).
const maxSpares = 64

// segment is a fixed-size block of notifications. A buffer is a list of
// segments, so that it grows by linking a segment, never by copying what
// it holds, and a delivered segment is reused as it is.
type segment[T any] struct {
	ns [segmentLen]Notification[T]
	// n is the number of notifications held, ns[:n].
	n    int
	next *segment[T]
}

// queue is a first-in, first-out list of notifications in segments. It is
// not safe for simultaneous use. The zero value is empty.
type queue[T any] struct {
	head, tail *segment[T]
	len        int
}

// push appends n, linking a segment from spare when the last one is full.
func (q *queue[T]) push(n Notification[T], spare *spares[T]) {
	if q.tail == nil || q.tail.n == segmentLen {
		s := spare.get()
		if q.tail == nil {
			q.head = s
		} else {
			q.tail.next = s
		}
		q.tail = s
	}
	q.tail.ns[q.tail.n] = n
	q.tail.n++
	q.len++
}

// spares holds empty segments for reuse, as a list.
type spares[T any] struct {
	list *segment[T]
	n    int
}

// get returns an empty segment: a spare one, or a new one.
func (p *spares[T]) get() *segment[T] {
	s := p.list
	if s == nil {
		return new(segment[T])
	}
	p.list, s.next = s.next, nil
	p.n--
	return s
}

// give takes back the empty segments of list, which held the last chunk
// delivered, keeping at most maxSpares. While more than twice the
// segments that chunk needed are spare, one is dropped at each call: the
// memory of a burst is given back over the deliveries that follow it, and
// a steady stream keeps what it needs.
func (p *spares[T]) give(list *segment[T], used int) {
	for s := list; s != nil; {
		next := s.next
		s.next = nil
		if p.n < maxSpares {
			s.next = p.list
			p.list = s
			p.n++
		}
		s = next
	}
	if p.n > 2*used+1 {
		p.list = p.list.next
		p.n--
	}
}
