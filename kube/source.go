package kube

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	clientfeatures "k8s.io/client-go/features"

	"github.com/typedcache/typedcache/reflector"
)

// Object is a Kubernetes API object as clients return it: *corev1.Pod,
// *appsv1.Deployment, *unstructured.Unstructured,
// *metav1.PartialObjectMetadata and every other generated type. It
// satisfies keys.Object, so it can be cached.
type Object interface {
	runtime.Object
	metav1.Object
}

// ListObject is a Kubernetes list as clients return it: *corev1.PodList,
// *unstructured.UnstructuredList, *metav1.PartialObjectMetadataList, ...
type ListObject interface {
	runtime.Object
	metav1.ListInterface
}

// Client is the list and watch half of a client for one resource. Every
// generated typed client (clientset.CoreV1().Pods(namespace)), the dynamic
// client (dynamic.Interface.Resource(gvr).Namespace(namespace)) and the
// metadata client (metadata.Interface.Resource(gvr)) implement it. The
// namespace, if any, is the client's.
type Client[L ListObject] interface {
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// Options are the optional settings of a Source. The zero value selects
// every object the client can see, with streaming lists as client-go would
// use them.
type Options struct {
	// LabelSelector restricts the source to objects whose labels match it,
	// in the syntax of metav1.ListOptions ("app=web,tier!=db").
	LabelSelector string
	// FieldSelector restricts the source to objects whose fields match it
	// ("status.phase=Running").
	FieldSelector string
	// DisableStreamingList makes the source declare no streaming list, so
	// that the reflector does a classic paginated List and then a Watch.
	// Streaming lists are also off for client-go's fake clients, which
	// cannot stream, and when client-go's WatchListClient feature gate is
	// (KUBE_FEATURE_WatchListClient=false in the environment), so that our
	// informers and client-go's make the same requests. A server that
	// refuses streaming lists makes the reflector list at once; one older
	// than Kubernetes 1.27 ignores the request, and the reflector lists
	// once the stream has sent nothing for its idle timeout
	// (reflector.Options.StreamingListIdleTimeout, 5s by default): turn
	// streaming off for those to save that wait.
	DisableStreamingList bool
	// DropManagedFields makes the source clear every object's
	// metadata.managedFields (the server's record of which client set which
	// field, often a third of an object's size) before the reflector sees
	// it, as controller-runtime's cache.TransformStripManagedFields does.
	// Programs that never read managedFields cache less with it. Sources
	// that drop them have an identity of their own, so a Factory never
	// shares their informer with a source that keeps them.
	DropManagedFields bool
	// DecodeWithClient makes a source over a generated typed client read
	// every response through the client's own List and Watch, decoded by
	// client-go, instead of decoding them itself (see the package
	// documentation's Decoding section). The objects are the same; client-go
	// spends more time and memory on them, and by default they keep their
	// own maps (see MapSharing).
	DecodeWithClient bool
	// MapSharing chooses the sources whose objects share maps: their maps
	// of strings (labels, annotations, node selectors, data) and resource
	// lists (requests, limits) are replaced by equal maps of earlier
	// objects, once nothing will edit them. Objects of one kind repeat most
	// of these maps (the Pods of one template have the same), so a cache
	// holds much less. For an informer without a Transform, whose lists
	// and watches are ReadOnly, the source shares every object it delivers
	// as it decodes it (the protobuf decoder, slices of messages and
	// messages too, by the bytes of their encoding, which spares decoding
	// them); with a
	// Transform, which may edit maps, the informer shares the objects of
	// lists and creations after it (see Share), and updated objects keep
	// their own maps until a relist. The zero value, ShareDecodedMaps,
	// shares the maps of the objects the source decodes itself and no
	// others. Code that edits cached objects, which no program may do,
	// would change every object sharing the edited map, not just one: run
	// the informer's MutationDetector in tests.
	MapSharing MapSharing
	// Logger receives the source's one log record: at Info level, on its
	// first List or Watch, its decoding path (see ListerWatcher.Decoding)
	// and, off the direct path, why. The default is slog.Default().
	Logger *slog.Logger
}

// MapSharing says which sources make the objects an informer caches share
// their equal maps (see Options.MapSharing).
type MapSharing uint8

const (
	// ShareDecodedMaps, the default, shares maps where the source decodes
	// the server's responses itself: a Source or SourceWithOptions over a
	// generated typed client, without DecodeWithClient. There sharing costs
	// a small part of what decoding the object did. Objects that reach the
	// source already decoded (through DecodeWithClient, the dynamic and
	// metadata clients, client-go's fakes) keep their own maps: an
	// informer spends little else on them, and sharing would be most of
	// its work.
	ShareDecodedMaps MapSharing = iota
	// ShareAllMaps shares maps in every source, whoever decoded its
	// objects.
	ShareAllMaps
	// KeepOwnMaps leaves every object its own maps, as client-go does.
	KeepOwnMaps
)

// resolved returns ShareAllMaps or KeepOwnMaps: what m means for a
// source that decodes responses itself or not. An unknown value means
// the default.
func (m MapSharing) resolved(decodes bool) MapSharing {
	switch {
	case m == ShareAllMaps || m == KeepOwnMaps:
		return m
	case decodes:
		return ShareAllMaps
	}
	return KeepOwnMaps
}

// ListerWatcher is a reflector.ListerWatcher[T] backed by a Kubernetes
// client: the source of an informer for one resource. It is safe for
// simultaneous use by multiple goroutines.
type ListerWatcher[T Object, L ListObject] struct {
	client   Client[L]
	direct   *direct[T] // nil where the source reads through client
	decoding Decoding   // direct's path, or why direct is nil
	logOnce  sync.Once  // logs decoding

	items    itemsFunc[T, L]
	opts     Options
	caps     reflector.Capabilities
	name     string // T's type, for error messages
	identity string // see Identity
	// maps shares equal maps among the objects an informer caches; nil
	// where Options.MapSharing resolves to KeepOwnMaps.
	maps *mapSharer
}

// Source returns a ListerWatcher for every object of type T that client
// lists and watches:
//
//	pods := kube.Source[*corev1.Pod](clientset.CoreV1().Pods(namespace))
//
// The list type L is inferred from the client; its Items must be values of
// the type T points to (corev1.PodList holds []corev1.Pod). Source panics
// if they are not: that is a programming error, detected before anything
// is listed.
func Source[T Object, L ListObject](client Client[L]) *ListerWatcher[T, L] {
	return SourceWithOptions[T](client, Options{})
}

// SourceWithOptions is Source with selectors or without streaming lists.
func SourceWithOptions[T Object, L ListObject](client Client[L], opts Options) *ListerWatcher[T, L] {
	d, decoding := newDirect[T](client, opts)
	opts.MapSharing = opts.MapSharing.resolved(d != nil)
	s := newSource[T](client, opts, decoding, lacksWatchList(client), typedIdentity[T](client, opts))
	if d != nil && s.maps != nil {
		d.readOnly = d.objects.readOnlyObjects(s.maps)
	}
	s.direct = d
	return s
}

// newSource returns the source of client, which decodes as decoding says.
// noWatchList says that the client, or the one it was made from, cannot
// stream lists. opts.MapSharing is resolved: ShareAllMaps or KeepOwnMaps.
func newSource[T Object, L ListObject](client Client[L], opts Options, decoding Decoding, noWatchList bool, identity string) *ListerWatcher[T, L] {
	items, err := newItemsFunc[T, L]()
	if err != nil {
		panic(err)
	}
	streaming := !opts.DisableStreamingList && !noWatchList &&
		clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient)
	var sharer *mapSharer
	if t := reflect.TypeFor[T](); opts.MapSharing == ShareAllMaps && t.Kind() == reflect.Pointer {
		sharer = newMapSharer(t.Elem())
	}
	return &ListerWatcher[T, L]{
		maps:   sharer,
		client: client,
		items:  items,
		opts:   opts,
		caps: reflector.Capabilities{
			Pagination:    true,
			Bookmarks:     true,
			StreamingList: streaming,
		},
		name:     reflect.TypeFor[T]().String(),
		identity: identity,
		decoding: decoding,
	}
}

// Share makes obj's maps of strings (labels, annotations, node selectors,
// data) and resource lists the equal maps of objects it shared before, if
// the source shares maps (see Options.MapSharing); otherwise it returns
// obj as it is. An informer with a Transform calls it (it implements
// reflector.Sharer) for the objects of lists and creations as it caches
// them, after the Transform; from then on the object is read-only, like
// every cached object. The objects of ReadOnly lists and watches are
// shared as they are decoded, without it. Nil maps stay nil.
func (s *ListerWatcher[T, L]) Share(obj T) T {
	if s.maps != nil {
		s.maps.shareObject(reflect.ValueOf(obj).UnsafePointer())
	}
	return obj
}

// Capabilities reports what the Kubernetes API offers: paginated lists,
// bookmarks and, unless disabled or the client is one of client-go's
// fakes, streaming lists. Resource versions are declared opaque, as the
// API documents them.
func (s *ListerWatcher[T, L]) Capabilities() reflector.Capabilities { return s.caps }

// List lists the objects, one page of at most opts.Limit items if it is set.
// A ResourceVersion other than "" and "0" asks for a state not older than
// it. Each item is moved out of the decoded list into its own allocation
// (a shallow copy: its maps, slices and strings are not duplicated), so
// that the list's array can be freed.
func (s *ListerWatcher[T, L]) List(ctx context.Context, opts reflector.ListOptions) (reflector.ListResult[T], error) {
	s.logDecoding(ctx)
	lo := s.selectors()
	lo.Limit = opts.Limit
	lo.Continue = opts.Continue
	if opts.Continue == "" { // a continue token carries its own version
		lo.ResourceVersion = opts.ResourceVersion
		if rv := opts.ResourceVersion; rv != "" && rv != "0" {
			// Without a match, a paginated list would be served at exactly rv.
			lo.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
		}
	}
	if s.direct != nil {
		items, meta, err := s.direct.list(ctx, lo, opts.ReadOnly)
		if err != nil {
			return reflector.ListResult[T]{}, mapError("list", s.name, err)
		}
		return reflector.ListResult[T]{Items: items, ResourceVersion: meta.ResourceVersion, Continue: meta.Continue}, nil
	}
	list, err := s.client.List(ctx, lo)
	if err != nil {
		return reflector.ListResult[T]{}, mapError("list", s.name, err)
	}
	items, ok := s.items(list)
	if !ok {
		return reflector.ListResult[T]{}, fmt.Errorf("kube: list %s: client returned neither a list nor an error", s.name)
	}
	for _, item := range items {
		if s.opts.DropManagedFields {
			item.SetManagedFields(nil)
		}
		if opts.ReadOnly {
			s.Share(item)
		}
	}
	return reflector.ListResult[T]{
		Items:           items,
		ResourceVersion: list.GetResourceVersion(),
		Continue:        list.GetContinue(),
	}, nil
}

// Watch starts watching the objects after opts.ResourceVersion. With
// opts.SendInitialEvents it asks for a streaming list (sendInitialEvents,
// with bookmarks, at a state not older than opts.ResourceVersion) and marks
// the bookmark annotated k8s.io/initial-events-end as InitialEventsEnd.
// Without it, a ResourceVersion of "" or "0" makes the server first send an
// Added event for every current object, as client-go's watches do.
//
// The watch ends when ctx ends, on Stop, when the server closes the stream
// (at opts.Timeout, rounded up to whole seconds, or its own timeout), or
// with the error of a watch.Error event, which wraps reflector.ErrExpired
// for a resource version the server no longer has. It has no goroutine of
// its own: each event goes from the client's decoding goroutine to the
// reader's Next.
func (s *ListerWatcher[T, L]) Watch(ctx context.Context, opts reflector.WatchOptions) (reflector.Watch[T], error) {
	s.logDecoding(ctx)
	lo := s.selectors()
	lo.ResourceVersion = opts.ResourceVersion
	lo.AllowWatchBookmarks = opts.AllowBookmarks
	if opts.Timeout > 0 {
		lo.TimeoutSeconds = new(int64(math.Ceil(opts.Timeout.Seconds())))
	}
	if opts.SendInitialEvents {
		lo.SendInitialEvents = new(true)
		lo.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
		lo.AllowWatchBookmarks = true // the end of the initial events is a bookmark
	}
	if s.direct != nil {
		w, err := s.direct.watch(ctx, lo, s.name, opts.ReadOnly)
		if err != nil {
			return nil, mapError("watch", s.name, err)
		}
		return w, nil
	}
	w, err := s.client.Watch(ctx, lo)
	if err != nil {
		return nil, mapError("watch", s.name, err)
	}
	x := newWatcher[T](ctx, w, s.name, s.opts.DropManagedFields)
	if opts.ReadOnly && s.maps != nil {
		x.share = s.Share
	}
	return x, nil
}

func (s *ListerWatcher[T, L]) selectors() metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: s.opts.LabelSelector, FieldSelector: s.opts.FieldSelector}
}
