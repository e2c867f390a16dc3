package integration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	"github.com/typedcache/typedcache/kube"
)

// sentinel is the name of the object created after the recorded updates:
// its Added event marks the end of a replay.
const sentinel = "zz-sentinel"

// recording holds the server's responses to an informer's requests for
// one resource, to be replayed from memory. It is an http.RoundTripper.
type recording struct {
	ns, resource           string
	list, watch, streaming response
}

type response struct {
	contentType string
	body        []byte
}

// recorder records the responses to the GET requests of one client.
type recorder struct {
	mu  sync.Mutex
	rec *recording
	buf map[string]*bytes.Buffer
}

func (r *recorder) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		if err != nil || req.Method != http.MethodGet {
			return resp, err
		}
		kind := requestKind(req)
		buf := &bytes.Buffer{}
		r.mu.Lock()
		r.buf[kind] = buf
		r.response(kind).contentType = resp.Header.Get("Content-Type")
		r.mu.Unlock()
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.TeeReader(resp.Body, lockedWriter{&r.mu, buf}), resp.Body}
		return resp, nil
	})
}

func (r *recorder) response(kind string) *response {
	switch kind {
	case "watch":
		return &r.rec.watch
	case "streaming":
		return &r.rec.streaming
	}
	return &r.rec.list
}

// record creates the objects to update, and for each of codecs records a
// list of them, then a plain watch from the list's version and a
// streaming watch while it updates them and creates the sentinel. The
// server closes a watch whose reader falls behind, which a busy machine
// can cause; such a recording is made again, in a new namespace, up to
// three times in all.
func record[T kube.Object, L kube.ListObject](b *testing.B, c *cluster, k benchKind[T, L], codecs []codec) map[string]*recording {
	b.Helper()
	const attempts = 3
	for attempt := 1; ; attempt++ {
		recs, err := recordOnce(b, c, k, codecs)
		if err == nil {
			return recs
		}
		if attempt == attempts {
			b.Fatalf("%v, in each of %d attempts", err, attempts)
		}
		b.Logf("recording again: %v", err)
	}
}

// errEndedEarly reports a recorded watch that the server closed before
// the sentinel.
var errEndedEarly = errors.New("a recorded watch ended before the sentinel")

func recordOnce[T kube.Object, L kube.ListObject](b *testing.B, c *cluster, k benchKind[T, L], codecs []codec) (map[string]*recording, error) {
	_, updated, updates := benchSizes()
	ns := c.namespace(b)
	cs := c.client(b, nil)
	createAll(b, cs, k, ns, updated)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	recs := map[string]*recording{}
	var recorders []*recorder
	var watches []watch.Interface
	for _, cd := range codecs {
		r := &recorder{rec: &recording{ns: ns, resource: k.name}, buf: map[string]*bytes.Buffer{}}
		recs[cd.name], recorders = r.rec, append(recorders, r)
		cfg := rest.CopyConfig(c.cfg)
		cfg.Wrap(r.wrap)
		client := k.client(cd.clientset(b, cfg), ns)
		list, err := client.List(ctx, metav1.ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		plain, err := client.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion(), AllowWatchBookmarks: true})
		if err != nil {
			b.Fatal(err)
		}
		streaming, err := client.Watch(ctx, metav1.ListOptions{
			SendInitialEvents: new(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true,
		})
		if err != nil {
			b.Fatal(err)
		}
		watches = append(watches, plain, streaming)
	}
	// Every watch is read while the objects change: a watcher that falls
	// behind is closed by the server.
	var wg sync.WaitGroup
	for _, w := range watches {
		wg.Go(func() {
			defer w.Stop()
			for ev := range w.ResultChan() {
				if o, ok := ev.Object.(T); ok && o.GetName() == sentinel {
					return
				}
			}
		})
	}
	if err := parallel(updates, writers, func(i int) error { return k.update(ctx, cs, ns, i%updated, i/updated+1) }); err != nil {
		b.Fatal(err)
	}
	if err := k.create(ctx, cs, ns, -1); err != nil { // named below
		b.Fatal(err)
	}
	wg.Wait()
	for _, r := range recorders {
		r.mu.Lock()
		for kind, buf := range r.buf {
			r.response(kind).body = bytes.Clone(buf.Bytes())
		}
		r.mu.Unlock()
		for _, body := range [][]byte{r.rec.watch.body, r.rec.streaming.body} {
			if !bytes.Contains(body, []byte(sentinel)) {
				return nil, fmt.Errorf("%w: %s, %s", errEndedEarly, r.rec.list.contentType, k.name)
			}
		}
		b.Logf("recorded %s %s: a list of %d bytes, a watch of %d bytes, a streaming watch of %d bytes", k.name, r.rec.list.contentType,
			len(r.rec.list.body), len(r.rec.watch.body), len(r.rec.streaming.body))
	}
	return recs, nil
}

type lockedWriter struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func requestKind(r *http.Request) string {
	q := r.URL.Query()
	switch {
	case q.Get("watch") == "true" && q.Get("sendInitialEvents") == "true":
		return "streaming"
	case q.Get("watch") == "true":
		return "watch"
	}
	return "list"
}

// RoundTrip answers the resource's lists and watches from the recording;
// a watch's body, once replayed, blocks until the request is cancelled, as
// an idle watch would.
func (rec *recording) RoundTrip(r *http.Request) (*http.Response, error) {
	if !strings.HasSuffix(r.URL.Path, "/"+rec.resource) {
		return nil, fmt.Errorf("replay: unexpected request %s", r.URL)
	}
	var resp response
	var body io.Reader
	switch requestKind(r) {
	case "list":
		resp = rec.list
		body = bytes.NewReader(resp.body)
	case "watch":
		resp = rec.watch
		body = io.MultiReader(bytes.NewReader(resp.body), blockUntilDone{r.Context()})
	case "streaming":
		resp = rec.streaming
		body = io.MultiReader(bytes.NewReader(resp.body), blockUntilDone{r.Context()})
	}
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {resp.contentType}},
		Body:       io.NopCloser(body),
		Request:    r,
	}, nil
}

type blockUntilDone struct{ ctx context.Context }

func (b blockUntilDone) Read([]byte) (int, error) {
	<-b.ctx.Done()
	return 0, b.ctx.Err()
}
