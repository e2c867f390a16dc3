package memsource

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/typedcache/typedcache/reflector"
)

// Errors of List and Watch arguments. Match them with errors.Is.
var (
	// ErrInvalidVersion reports a resource version that this source did not
	// make and that is not "" or "0".
	ErrInvalidVersion = errors.New("memsource: invalid resource version")
	// ErrInvalidContinue reports a continue token that this source did not
	// make.
	ErrInvalidContinue = errors.New("memsource: invalid continue token")
)

// List returns the objects in key order, at the current version.
//
// opts.ResourceVersion "" and "0" both read the current state; any other
// version must be one the source has reached, else List fails with an
// error wrapping reflector.ErrExpired (Kubernetes' "too large resource
// version"). With opts.Limit > 0 the answer is a page of at most Limit
// objects and, if more remain, a Continue token. Every page of one list
// shows the state at the first page's version, whatever was written since;
// a token whose version fell out of the history fails with
// reflector.ErrExpired, like Kubernetes' 410 on an expired continue. With a
// token, opts.ResourceVersion is ignored: the token fixes the version.
//
// The items slice is the caller's, and so are the objects when the source
// copies (see Options.Clone); otherwise they are shared. An unpaginated list of 100k objects costs a copy of the slice
// once the sorted view is built (see the package doc, Performance).
func (s *Source[T]) List(ctx context.Context, opts reflector.ListOptions) (reflector.ListResult[T], error) {
	s.stats.lists.Add(1)
	var none reflector.ListResult[T]
	if s.zero() {
		return none, errZero
	}
	if err := ctx.Err(); err != nil {
		return none, err
	}
	var (
		tok      token
		atLeast  uint64
		err      error
		paginate = s.caps.Pagination
	)
	if paginate && opts.Continue != "" {
		tok, err = decodeToken(opts.Continue)
	} else {
		atLeast, err = s.parseVersion(opts.ResourceVersion)
	}
	if err != nil {
		return none, err
	}
	s.mu.Lock()
	delay := s.faults.ListDelay
	s.mu.Unlock()
	if err := sleep(ctx, delay, &s.stats.delayedLists); err != nil {
		return none, err
	}

	snap, err := s.listSnapshot(tok, atLeast)
	if err != nil {
		return none, err
	}
	start, end := 0, len(snap.keys)
	if tok.version != 0 {
		i, found := slices.BinarySearch(snap.keys, tok.key)
		if found {
			i++
		}
		start = i
	}
	res := reflector.ListResult[T]{ResourceVersion: s.codec.format(snap.version)}
	if paginate && opts.Limit > 0 && int64(end-start) > opts.Limit {
		end = start + int(opts.Limit)
		res.Continue = token{version: snap.version, key: snap.keys[end-1]}.encode()
	}
	res.Items = slices.Clone(snap.items[start:end])
	if s.clone != nil {
		for i, obj := range res.Items {
			res.Items[i] = s.clone(obj)
		}
	}
	return res, nil
}

// listSnapshot returns the snapshot a List call reads, after the list
// faults: the token's, or the current one if it is at least atLeast.
func (s *Source[T]) listSnapshot(tok token, atLeast uint64) (*snapshot[T], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.faults.takeListFailure(); err != nil {
		s.stats.failedLists.Add(1)
		return nil, err
	}
	if tok.version == 0 {
		if atLeast > s.version {
			s.stats.expired.Add(1)
			return nil, fmt.Errorf("memsource: list at version %s, newer than the current %s: %w",
				s.codec.format(atLeast), s.codec.format(s.version), reflector.ErrExpired)
		}
		return s.currentLocked(), nil
	}
	if tok.version > s.version {
		return nil, fmt.Errorf("%w: version %d is in the future", ErrInvalidContinue, tok.version)
	}
	if tok.version < s.oldest {
		s.stats.expired.Add(1)
		return nil, fmt.Errorf("memsource: continue at version %s, older than the oldest kept %s: %w",
			s.codec.format(tok.version), s.codec.format(s.oldest), reflector.ErrExpired)
	}
	return s.snapshotAtLocked(tok.version), nil
}

// parseVersion returns the version a List or Watch argument names; "" and
// "0" name no version and return 0.
func (s *Source[T]) parseVersion(v string) (uint64, error) {
	if v == "" || v == "0" {
		return 0, nil
	}
	n, ok := s.codec.parse(v)
	if !ok {
		return 0, fmt.Errorf("%w: %q", ErrInvalidVersion, v)
	}
	return n, nil
}

// token is the content of a continue token: the version of the list and
// the last key already returned.
type token struct {
	version uint64 // 0 for no token
	key     string
}

// encode returns the opaque form of t.
func (t token) encode() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatUint(t.version, 10) + "/" + t.key))
}

// decodeToken parses a token made by encode.
func decodeToken(s string) (token, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return token{}, fmt.Errorf("%w: %q", ErrInvalidContinue, s)
	}
	v, key, ok := strings.Cut(string(b), "/")
	n, err := strconv.ParseUint(v, 10, 64)
	if !ok || err != nil || n == 0 {
		return token{}, fmt.Errorf("%w: %q", ErrInvalidContinue, s)
	}
	return token{version: n, key: key}, nil
}
