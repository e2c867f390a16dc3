package kube

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"sync"

	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/typedcache/typedcache/kube/internal/gunzip"
)

// Compressed responses.
//
// The API server compresses a list response of more than 128 kB, and a
// streaming list's watch, when the request accepts gzip, as Go's HTTP
// transport says it does unless compression is disabled (client-go's
// rest.Config.DisableCompression); the transport then inflates the body
// with compress/gzip, a large part of what an initial sync costs the
// direct path. The direct path asks for gzip itself where the transport
// would, so that the transport leaves the body compressed, and inflates it
// with internal/gunzip, which reads the same format faster. The bytes on
// the wire are the same.

// gzipMagic starts a gzip stream (RFC 1952); no JSON or protobuf response
// starts with it.
var gzipMagic = []byte{0x1f, 0x8b}

// transportCompresses reports whether rt asks for gzip on its own: an
// *http.Transport with compression enabled, under wrappers that say what
// they wrap (client-go's do). It reports false for any other transport,
// which the direct path then leaves to do as it does.
func transportCompresses(rt http.RoundTripper) bool {
	if rt == nil {
		rt = http.DefaultTransport // what an http.Client uses
	}
	for {
		switch t := rt.(type) {
		case *http.Transport:
			return !t.DisableCompression
		case utilnet.RoundTripperWrapper:
			rt = t.WrappedRoundTripper()
		default:
			return false
		}
	}
}

// An inflater is a gzip reader and the buffer over it that the decoders
// read, kept for the next response once one is read.
type inflater struct {
	gz  gunzip.Reader
	buf *bufio.Reader
}

var inflaters = sync.Pool{New: func() any { return new(inflater) }}

// inflated returns r, or a reader of what it inflates if it holds a gzip
// stream: the body of a request that asked for gzip itself. Call done
// once the reader is no longer read.
func inflated(r *bufio.Reader) (_ *bufio.Reader, done func(), _ error) {
	head, _ := r.Peek(len(gzipMagic))
	if !bytes.Equal(head, gzipMagic) {
		return r, func() {}, nil
	}
	f := inflaters.Get().(*inflater)
	if err := f.gz.Reset(r); err != nil {
		inflaters.Put(f)
		return nil, func() {}, fmt.Errorf("%w: a gzip stream: %w", errMalformed, err)
	}
	if f.buf == nil {
		f.buf = bufio.NewReaderSize(&f.gz, 32<<10)
	} else {
		f.buf.Reset(&f.gz)
	}
	return f.buf, func() { inflaters.Put(f) }, nil
}
