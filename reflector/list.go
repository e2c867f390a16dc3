package reflector

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/typedcache/typedcache/keys"
)

// sync replaces the store's content with the source's, by a streaming list
// when the source has one and otherwise by a (paginated) list. It returns
// the still-open watch of a successful streaming list, or nil.
func (r *Reflector[T]) sync(ctx context.Context) (Watch[T], error) {
	var (
		w     Watch[T]
		items []T
		rv    string
		err   error
	)
	r.counters.lists.Add(1)
	if r.streaming {
		w, items, rv, err = r.streamList(ctx)
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.Is(err, errStalled):
			// Not a failure of this attempt but a source that cannot
			// stream: say so once, and list from now on.
			r.streaming = false
			r.log.WarnContext(ctx, "the source declares streaming lists but sent no event for a while before the end of its initial events; listing instead, and not streaming again",
				"idleTimeout", r.streamIdle, "err", err)
		default:
			r.report(ctx, fmt.Errorf("reflector: streaming list failed, listing instead: %w", err))
		}
	}
	if w == nil {
		items, rv, err = r.list(ctx)
		if err != nil {
			return nil, err
		}
	}
	n := len(items)
	if err := r.store.Replace(items, rv); err != nil {
		if w != nil {
			w.Stop()
		}
		return nil, storeError("replace", err)
	}
	r.setLastRV(rv)
	r.counters.lastList.Store(time.Now().UnixNano())
	r.log.DebugContext(ctx, "store synced", "items", n, "resourceVersion", rv, "streamed", w != nil)
	return w, nil
}

// list reads the source's whole content, page by page where it paginates,
// and returns the storable items and the version they were read at.
func (r *Reflector[T]) list(ctx context.Context) ([]T, string, error) {
	rv := r.relistVersion()
	items, listRV, paginated, err := r.listPages(ctx, rv)
	if errors.Is(err, ErrExpired) && rv != "" {
		// The version is gone or unknown to the source: read its latest
		// state at once, and keep doing so until a list succeeds.
		r.rvUnavailable = true
		r.log.DebugContext(ctx, "list expired, listing the latest state", "resourceVersion", rv, "err", err)
		rv = ""
		items, listRV, paginated, err = r.listPages(ctx, rv)
	}
	if err != nil {
		return nil, "", fmt.Errorf("reflector: list at resource version %q: %w", rv, err)
	}
	if rv == "0" && paginated {
		r.paginated = true
	}
	r.rvUnavailable = false
	return r.storable(ctx, items), listRV, nil
}

// relistVersion is the version to list at: "0" (any state the source has
// at hand) the first time, the last seen version afterwards so as never to
// go back in time, and "" (the latest state) after that version expired.
func (r *Reflector[T]) relistVersion() string {
	switch rv := r.LastSyncResourceVersion(); {
	case r.rvUnavailable:
		return ""
	case rv == "":
		return "0"
	default:
		return rv
	}
}

// pageLimit is the page size of a list at rv, or 0 for one unpaginated
// call.
func (r *Reflector[T]) pageLimit(rv string) int64 {
	switch {
	case !r.caps.Pagination || r.pageSize < 0:
		return 0
	case r.pageSize > 0:
		return r.pageSize
	case rv == "" || rv == "0" || r.paginated:
		return defaultPageSize
	default:
		return 0
	}
}

// listPages lists at rv, following continue tokens, and reports whether
// the answer came in more than one page. When a continue token expires it
// falls back to one unpaginated list at rv.
func (r *Reflector[T]) listPages(ctx context.Context, rv string) (items []T, listRV string, paginated bool, err error) {
	opts := ListOptions{ResourceVersion: rv, Limit: r.pageLimit(rv), ReadOnly: r.readOnly}
	var pages [][]T
	for {
		page, err := r.lw.List(ctx, opts)
		if err != nil {
			if opts.Continue == "" || !errors.Is(err, ErrExpired) {
				return nil, "", paginated, err
			}
			r.log.DebugContext(ctx, "continue token expired, listing in one call", "resourceVersion", rv)
			page, err = r.lw.List(ctx, ListOptions{ResourceVersion: rv, ReadOnly: r.readOnly})
			return page.Items, page.ResourceVersion, paginated, err
		}
		if pages == nil {
			if page.Continue == "" {
				return page.Items, page.ResourceVersion, false, nil
			}
			// Later pages carry the first page's version, like Kubernetes.
			listRV = page.ResourceVersion
			paginated = true
		}
		pages = append(pages, page.Items)
		switch page.Continue {
		case "":
			return slices.Concat(pages...), listRV, true, nil
		case opts.Continue:
			return nil, "", true, fmt.Errorf("reflector: source repeated continue token %q", page.Continue)
		}
		// A continuation names its snapshot itself: no resource version.
		opts = ListOptions{Limit: opts.Limit, Continue: page.Continue, ReadOnly: r.readOnly}
	}
}

// storable returns the items that can be stored, reporting the others in
// one error. It copies only when it must drop something.
func (r *Reflector[T]) storable(ctx context.Context, items []T) []T {
	if bad := firstMalformed(items); bad < len(items) {
		_, err := objectVersion(items[bad])
		return r.dropMalformed(ctx, items, bad, err)
	}
	return items
}

// firstMalformed returns the index of the first item that objectVersion
// rejects, or len(items) if there is none. It makes the same checks, under
// one recover for the whole loop rather than one per item: a list of
// 100,000 objects is checked in one pass of a few nanoseconds each.
func firstMalformed[T keys.Object](items []T) (i int) {
	defer func() {
		// A method panicked on items[i]: i is the answer.
		_ = recover()
	}()
	for ; i < len(items); i++ {
		obj := items[i]
		if obj.GetName() == "" {
			return i
		}
		_ = obj.GetNamespace()
		_ = obj.GetResourceVersion()
	}
	return i
}

// dropMalformed is the slow path of storable: items[bad] failed with err.
func (r *Reflector[T]) dropMalformed(ctx context.Context, items []T, bad int, err error) []T {
	kept := make([]T, bad, len(items)-1)
	copy(kept, items[:bad])
	dropped := 1
	for _, obj := range items[bad+1:] {
		if _, err := objectVersion(obj); err != nil {
			dropped++
			continue
		}
		kept = append(kept, obj)
	}
	r.report(ctx, fmt.Errorf("%w: skipped %d of %d listed items; item %d: %w", ErrMalformed, dropped, len(items), bad, err))
	return kept
}
