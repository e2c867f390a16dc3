package kube

import (
	"context"
	"log/slog"
)

// DecodingPath says how a source decodes the server's responses: itself,
// on the direct path (see the package documentation's Decoding section),
// or through the client's own List and Watch.
type DecodingPath uint8

const (
	// ClientDecoding reads every response through the client's List and
	// Watch, decoded by client-go (or by whatever client the source was
	// given): 2 to 10 times slower than the direct path, with more
	// memory. Decoding.Reason says why.
	ClientDecoding DecodingPath = iota
	// DirectProtobuf makes the client's requests, which ask for protobuf
	// first, and decodes the responses itself. A server that answers
	// JSON instead (custom resources have no protobuf) is decoded
	// directly too.
	DirectProtobuf
	// DirectJSON makes the client's requests, which ask for JSON, and
	// decodes the responses itself.
	DirectJSON
)

// String returns "client", "direct protobuf" or "direct JSON".
func (p DecodingPath) String() string {
	switch p {
	case DirectProtobuf:
		return "direct protobuf"
	case DirectJSON:
		return "direct JSON"
	}
	return "client"
}

// Decoding is a source's decoding path and, off the direct path, why.
type Decoding struct {
	Path DecodingPath
	// Reason says why the source decodes through the client, "" on a
	// direct path: Options.DecodeWithClient, a client other than a
	// generated typed client (a fake, the dynamic or metadata client), a
	// content type other than protobuf and JSON, an object type whose JSON
	// decoding could differ, or a client-go release whose clients no
	// longer have the unexported fields the direct path reads.
	Reason string
}

// Decoding reports how the source decodes the server's responses, chosen
// once, when the source is made. The source also logs it, at Info level
// on Options.Logger, on its first List or Watch.
func (s *ListerWatcher[T, L]) Decoding() Decoding { return s.decoding }

// logDecoding logs the source's decoding path, and off the direct path
// why, on the first call: the source's first List or Watch, so that of
// the sources a Factory is given for one informer only the one it keeps
// logs.
func (s *ListerWatcher[T, L]) logDecoding(ctx context.Context) {
	s.logOnce.Do(func() {
		logger := s.opts.Logger
		if logger == nil {
			logger = slog.Default()
		}
		args := []any{"type", s.name, "path", s.decoding.Path.String()}
		if s.decoding.Reason != "" {
			args = append(args, "reason", s.decoding.Reason)
		}
		if s.identity != "" {
			args = append(args, "source", s.identity)
		}
		logger.InfoContext(ctx, "kube source decoding path", args...)
	})
}
