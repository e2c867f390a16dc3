// Package kube connects typedcache to a Kubernetes API server through
// client-go: Source turns the list and watch calls of any generated typed
// client, of the dynamic client or of the metadata client into a
// reflector.ListerWatcher[T], so that an informer caches *corev1.Pod (or
// *appsv1.Deployment, *unstructured.Unstructured, ...) with typed handlers
// and listers:
//
//	cs := kubernetes.NewForConfigOrDie(cfg)
//	factory := informer.NewFactory(informer.FactoryOptions{})
//	pods := kube.For[*corev1.Pod](factory, cs.CoreV1().Pods(namespace))
//
// kube.For is informer.For over kube.Source; SourceWithOptions adds label
// and field selectors; Dynamic and Metadata build the sources of the
// dynamic and metadata clients for a named resource. It is a separate
// module so that the core module never imports k8s.io. Package
// kube/leader runs a controller on one replica at a time: leader election
// on a coordination.k8s.io/v1 Lease.
//
// # Controllers
//
// The controller package builds controllers from informers; this package
// adds what needs Kubernetes itself:
//
//	m, err := kube.NewManager(cfg, kube.ManagerOptions{
//		Manager:        controller.ManagerOptions{Addr: ":8081"},
//		LeaderElection: kube.LeaderElection{Lease: "secret-mirror", Namespace: "default"},
//	})
//	configMaps := kube.For[*corev1.ConfigMap](m.Factory, m.Clientset.CoreV1().ConfigMaps(""))
//	secrets := kube.For[*corev1.Secret](m.Factory, m.Clientset.CoreV1().Secrets(""))
//	err = kube.AddOwnerIndex(secrets)
//	c := controller.New("secret-mirror", reconcile, controller.Options[string]{})
//	err = controller.For(c, configMaps)
//	err = kube.Owns[*corev1.ConfigMap](c, secrets) // a change of a Secret queues its ConfigMap
//	err = m.Add(c)
//	err = m.Run(ctx)
//
// The parts:
//
//   - NewManager builds, from a rest.Config, the clientset, an
//     informer.Factory and a controller.Manager that runs it, with a
//     kube/leader.Elector when LeaderElection names a Lease; the returned
//     Manager holds all three. Its doc states the client's defaults.
//     NewManagerForClientset takes a clientset instead: the fake one in
//     tests.
//   - Owns (OwnsKind for a kind client-go's scheme does not know) queues
//     the controller owner of each object of an owned informer, as
//     controller-runtime's Owns does; ControllerOwnerKeys is its map
//     function, for controller.Watches on controllers of other key types.
//   - AddOwnerIndex indexes an informer's objects by the UID of their
//     controller owner (IndexByOwner, under OwnerIndex), and OwnedBy lists
//     the objects an owner controls from the cache, in time proportional
//     to their number.
//   - LabelSelectorPredicate and BeingDeleted are the predicates that need
//     Kubernetes fields; the controller package has the others
//     (GenerationChanged, LabelsChanged, ...).
//
// Testing. A controller that writes through client-go is best tested over
// client-go's fake clientset: NewManagerForClientset(fake.NewClientset(),
// ...) runs the whole controller (informers, mapping, queue, reconcile)
// in-process, its writes come back through the informers as they would
// from a server, and the fake's watches work in a testing/synctest bubble,
// where synctest.Wait and Controller.WaitIdle tell when the controller is
// done, with no sleeps. memsource replaces only the reading side (the
// source of the informers), so it suits controllers whose writes do not
// go through client-go.
//
// # Semantics
//
// Lists. List passes the reflector's page size and continue token through,
// so lists are paginated as client-go's are. A list at resource version ""
// reads the latest state, at "0" any state the server's cache has, and at
// any other version a state not older than it (resourceVersionMatch
// NotOlderThan, also for paginated lists). Each item has its own
// allocation, so that no page of a list stays in memory because one of its
// objects is still cached: decoded straight into it (see Decoding), or
// moved out of the list the client decoded, a shallow copy that shares the
// item's maps, slices and strings.
//
// Watches. Watch passes the version, the timeout (rounded up to whole
// seconds) and the bookmark request through. With SendInitialEvents it asks
// for a streaming list (sendInitialEvents=true, resourceVersionMatch
// NotOlderThan, bookmarks on) and reports the bookmark annotated
// "k8s.io/initial-events-end": "true" as a Bookmark with InitialEventsEnd.
// Capabilities declares streaming lists unless Options.DisableStreamingList
// is set, client-go's WatchListClient feature gate is off (so that
// KUBE_FEATURE_WatchListClient=false switches typedcache's informers and
// client-go's to classic lists alike), or the client is one of client-go's
// fakes.
//
// Fakes. client-go's fake clients cannot stream lists: they never send the
// bookmark that ends the initial events. They declare it, on the fake
// clientset, the fake dynamic and metadata clients and their object
// tracker (IsWatchListSemanticsUnSupported), and the resource clients made
// from them all route their calls through client-go's testing.Fake. A
// client that declares it, or whose fields lead to a testing.Fake within
// three steps (every typed fake, and the dynamic and metadata fakes'
// resource interfaces), gets no streaming list: informers over
// fake.NewClientset() and the dynamic and metadata fakes sync at once. A
// fake the source cannot recognise (wrapped behind an interface, say) is
// found out by the reflector instead: a streaming list that sends nothing
// for reflector.Options.StreamingListIdleTimeout (5s) is given up for a
// list, with one warning.
//
// Identity. A ListerWatcher implements reflector.Identifier, so that an
// informer.Factory shares one informer among sources of the same objects
// and keeps sources of different objects apart, although the dynamic and
// metadata clients serve every resource with one Go type. The identity
// names the kind of client, the resource, the namespace and the
// selectors. Dynamic and Metadata are given the resource and namespace;
// Source takes the resource from T and the namespace from the typed
// client (every generated typed client, real or fake, reports it). Source
// over a client that cannot tell (the dynamic or metadata client's
// resource interfaces, or a client of your own without GetNamespace) has
// no identity, and a factory gives it an informer of its own.
//
// Errors. A resource version the server no longer has (HTTP 410 Gone, an
// expired continue token) or does not have yet (the ResourceVersionTooLarge
// cause) wraps reflector.ErrExpired, in the error of List, Watch or the
// watch's Next, so the reflector relists. Every other failure (429, 5xx,
// connection refused, a watch.Error status) is returned as it is, wrapped
// with the operation and type, so the reflector backs off; the client-go
// error stays reachable with errors.As and the apierrors predicates. A
// watch event whose object is not a T (or a bookmark without object
// metadata) fails the watch with an error wrapping ErrUnexpectedObject. A
// failure always ends the watch.
//
// # Decoding
//
// A source over one of client-go's generated typed clients (the clients of
// a kubernetes.Clientset, or of a clientset generated for your own types)
// makes the requests that client makes, through its REST client, with its
// headers, content type, rate limiter and timeouts, and decodes the
// responses itself, protobuf or JSON, straight into one allocation per
// object, as they arrive: a list page is never held whole, only the item
// being decoded (client-go reads each page into memory before decoding
// it). The objects are the ones client-go's decoding yields (the
// differential test in integration/ compares them, field by field, over a
// real server's lists, streaming lists and watches): protobuf through a
// decoder compiled once per type from the Kubernetes API types' protobuf
// tags, which shares repeated strings as it decodes and yields what the
// types' generated Unmarshal yields (their own Unmarshal for the types
// it does not know), JSON with encoding/json's semantics and
// client-go's exact field-name matching, read token by token through a
// decoder compiled once per type from its Go type and JSON tags, which
// shares repeated strings and quantities as it decodes and hands the
// values it does not read itself (floats, most maps, types with their
// own UnmarshalJSON other than times, quantities and int-or-string) to
// the default decoding (held to client-go's decoding over every kind
// client-go knows by a differential test and a fuzz test); the type of a
// decoded object is cleared, as client-go's typed clients clear it. Where
// the client's transport asks for gzip (client-go's, unless
// rest.Config.DisableCompression), the source asks for it itself and
// inflates compressed responses (large lists, streaming lists) itself,
// faster than the transport's compress/gzip. A response of another content type or of
// objects of another kind is an error, and a watch event of another kind
// wraps ErrUnexpectedObject. The source falls
// back to the client's own List and Watch for every other client (the
// fakes, the dynamic and metadata clients, clients of your own), for a
// client configured for another content type (CBOR), for object types
// whose JSON decoding could differ (fields of interface type), and with
// Options.DecodeWithClient. It finds a generated client's resource and
// content preference in fields client-go does not export; a client-go
// release that renames them makes the source fall back to the client too,
// slower but never wrong (run the differential test after an upgrade).
// ListerWatcher.Decoding reports the path a source takes (DirectProtobuf,
// DirectJSON or ClientDecoding) and why it falls back, and the source logs
// the same, once, at Info level, on its first List or Watch; a test fails
// when the direct path does not apply to the client-go release in go.mod.
//
// The objects a source decodes share memory where they repeat each other:
// every string equal to one the source decoded before (namespaces, field
// managers, owner references, images, container specs) is that earlier
// string, and equal managedFields field sets are one *FieldsV1. Strings
// are immutable, so this cannot be observed; the field sets are shared as
// cached objects always are, read-only (a Transform that changes
// managedFields assigns new values, as TransformStripManagedFields does,
// rather than writing into a field set's bytes). Fields unique to each
// object (names, UIDs, versions, data) are recognized as such and left
// alone, and the table of known strings is bounded.
//
// Cached objects also share their maps of strings (labels, annotations,
// node selectors, data) and resource lists (requests, limits) where they
// are equal, quantity for quantity in the same form: by default those of
// the objects the source decodes itself (see Options.MapSharing). Each
// object is shared once, when it is still the source's or the informer's
// alone and nothing will edit it any more:
//
//   - An informer without a Transform lists and watches ReadOnly
//     (reflector.ListOptions): the source shares as it decodes, on lists
//     and on every update. The protobuf decoder also makes equal slices
//     of messages (containers, volumes, tolerations, owner references)
//     one array, and equal messages one value (probes, resources, volume
//     sources, a volume mount or a container among others that differ):
//     a map, slice or message whose encoding is byte for byte that of one
//     decoded before is what that one decoded to, found by one hash of
//     those bytes and not decoded again, which spares the work of
//     building it as well as its memory (a Pod's status change finds its
//     containers; Pods of one template, whose service account volumes
//     differ, find most of their volumes and their containers' probes).
//     JSON objects are shared after decoding, a lookup per map. Nothing
//     holding a quantity in decimal form is shared, nor are bytes, and a
//     shared slice has no room to grow into.
//   - With a Transform, which may edit maps in place, the informer passes
//     the objects of lists and creations to the source's Share after the
//     Transform; an object updated by a watch event keeps its own maps
//     until a relist.
//
// Sharing an object decoded elsewhere (DecodeWithClient, the dynamic and
// metadata clients, the fakes) costs a hash and a comparison per map,
// most of what an informer spends on such an object, so those keep their
// own maps unless MapSharing is ShareAllMaps. A program that edited a
// cached object (never allowed, with client-go as here) would change
// every object sharing the map it edited: the informer's MutationDetector
// reports such edits, and KeepOwnMaps turns sharing off.
//
// # Concurrency
//
// A ListerWatcher is safe for simultaneous use by multiple goroutines, as
// the client-go clients are. A watch the source decodes itself reads and
// decodes the stream on a goroutine of its own, a bounded number of events
// ahead of Next, which returns them in order; the goroutine ends with the
// stream, on Stop, or when the context passed to Watch ends. A watch
// through the client starts no goroutine: its Next receives the client's
// next event on the reader's goroutine and converts it. Either way the
// stream is stopped when it fails, on Stop, or when the context passed to
// Watch ends.
//
// # Differences from client-go
//
//   - Typed: the source yields T and checks every watch event's type;
//     client-go's reflector drops an event of the wrong type with a log
//     line, here it is a watch failure the reflector reports.
//   - List items are moved out of the list as client-go's reflector does
//     (meta.ExtractListWithAlloc), found by reflection once per source.
//   - Streaming lists are a declared capability, on by default as in
//     client-go; a server that refuses them makes the reflector list
//     instead, one that ignores the request (older than 1.27) is listed
//     after the reflector's idle timeout, and Options.DisableStreamingList
//     avoids asking. client-go also turns them off for its fakes, but only
//     when given the clientset; built from a resource client, its reflector
//     waits for the end of the initial events as long as the watch lasts
//     (for a fake, for ever), logging a line every 10 seconds.
//   - Informer identity: client-go's SharedInformerFactory keys informers
//     by Go type and serves one clientset; its dynamic and metadata
//     informer factories key them by resource. Here one informer.Factory
//     serves every client, keyed by type and the source's identity.
//   - Resource versions are opaque strings, as the API documents them:
//     neither this package nor the reflector compares them.
package kube
