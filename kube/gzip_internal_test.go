package kube

import (
	"bufio"
	"bytes"
	stdgzip "compress/gzip"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/transport"
)

// The direct path asks for gzip where the client's transport would, and
// only there: client-go's transports, built from a rest.Config, say what
// they wrap down to the *http.Transport that decides.
func TestTransportCompresses(t *testing.T) {
	// A config with TLS options of its own, as a cluster's has: without
	// them client-go uses http.DefaultTransport, which compresses even
	// with DisableCompression.
	fromConfig := func(disable bool) http.RoundTripper {
		c, err := rest.HTTPClientFor(&rest.Config{Host: "https://example.invalid", DisableCompression: disable, UserAgent: "test",
			BearerToken: "x", TLSClientConfig: rest.TLSClientConfig{Insecure: true}})
		if err != nil {
			t.Fatal(err)
		}
		return c.Transport
	}
	tests := []struct {
		name string
		rt   http.RoundTripper
		want bool
	}{
		{"an http.Client's default", nil, true},
		{"http.Transport", &http.Transport{}, true},
		{"http.Transport without compression", &http.Transport{DisableCompression: true}, false},
		{"a client-go wrapper", transport.NewUserAgentRoundTripper("test", &http.Transport{}), true},
		{"a rest.Config's", fromConfig(false), true},
		{"a rest.Config's without compression", fromConfig(true), false},
		{"a wrapper that does not say what it wraps", roundTripperFunc(http.DefaultTransport.RoundTrip), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := transportCompresses(tt.rt); got != tt.want {
				t.Errorf("transportCompresses = %t, want %t", got, tt.want)
			}
		})
	}
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// gzipped is s compressed as the API server compresses, with gzip at
// level 1.
func gzipped(tb testing.TB, s string) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w, err := stdgzip.NewWriterLevel(&buf, 1)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := w.Write([]byte(s)); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// gzippedHead is gzipped(s) without its trailer.
func gzippedHead(t *testing.T, s string) []byte {
	b := gzipped(t, s)
	return b[:len(b)-8]
}

// A body is inflated when it is a gzip stream and read as it is
// otherwise; a gzip stream cut short, or with a corrupt header, is an
// error that says so.
func TestInflated(t *testing.T) {
	body := `{"kind":"ConfigMapList"}`
	compressed := gzipped(t, body)
	tests := []struct {
		name    string
		in      []byte
		want    string
		wantErr error
	}{
		{"plain JSON", []byte(body), body, nil},
		{"protobuf", []byte("k8s\x00\x0a"), "k8s\x00\x0a", nil},
		{"empty", nil, "", nil},
		{"gzip", compressed, body, nil},
		{"gzip cut short", compressed[:len(compressed)-6], body, io.ErrUnexpectedEOF},
		{"gzip header cut short", compressed[:5], "", io.ErrUnexpectedEOF},
		{"gzip magic, then garbage", append([]byte{0x1f, 0x8b}, strings.Repeat("x", 20)...), "", errMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, done, err := inflated(bufio.NewReader(bytes.NewReader(tt.in)))
			var got []byte
			if err == nil {
				got, err = io.ReadAll(r)
			}
			done()
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr == nil && string(got) != tt.want {
				t.Errorf("read %q, want %q", got, tt.want)
			}
		})
	}
}
