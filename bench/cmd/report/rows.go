package main

import (
	"fmt"
	"math"
	"strings"
)

// A row is one line of a results table: one metric of one benchmark pair.
type row struct {
	area   string  // package measured: "queue", "indexer", ...
	bench  string  // benchmark name without impl= and GOMAXPROCS suffix
	what   string  // the workload, for humans
	unit   string  // the metric, as reported by the benchmark
	target *target // from the package issues; nil if none
}

// notes explain, under an area's table, what a reader needs to read some
// of its rows right.
var notes = map[string][]string{
	"queue": {
		"AddAfter throughput counts the time from the first of 100k AddAfter calls (one goroutine, delays uniform in (0, 10ms]) to the last Done of the drain that follows once every item is due, the wait for the last item included (at most 10ms, the same on both sides).",
		"AddAfter lateness: one producer adds 10k items/s for a second, each with a delay uniform in (0, 10ms], and one consumer takes them out; an item's lateness is the time from its ready time (its AddAfter call plus its delay) to its Get. The producer paces itself by sleeping, and a sleep, like any runtime timer, ends up to about a millisecond late in a process that is otherwise idle, so items are added in bursts and both queues' timers fire at that granularity.",
	},
	"indexer": {
		"In the label-changed update, each object moves between two of 10 values of the \"app\" label, so buckets of about 10k objects gain and lose members.",
		"Random-order updates visit the objects in a permutation fixed by a seed (index values unchanged). With a List every N updates, the List is part of the measured work on both sides: ns/update is the time per update with the lists amortized over them.",
		"Reads while writing: one goroutine reads (Get by namespace and name through each side's lister, objects in a random order; or ByIndex of a namespace) while another updates random objects without pause; reads/s is the reader's rate, writes/s the writer's over the same time.",
	},
	"deltafifo": {
		"Each Add and Update computes its key (keys.Of, a new string): one allocation per delta before the FIFO does anything; in the steady state this benchmark measures (one FIFO, filled and drained again and again) the FIFO itself allocates nothing.",
		"The shallow rows add and update 8 objects and then take them out, over 10k objects, so that at most 8 keys are queued, as in an informer that keeps up with its watch. Against client-go's DeltaFIFO, both sides Pop one key (two deltas) at a time. Against client-go's RealFIFO, which its informers use since v0.35 (built as they build it: atomic events, unlocked while processing, no known objects), both sides take what is queued with PopBatch, as both informers do; RealFIFO keeps each delta apart instead of merging a key's deltas, so it hands out two batches of 8 deltas where typedcache hands out one batch of 8 keys.",
	},
	"reflector": {
		"Kubernetes path: both reflectors list the same in-memory client-go source, which hands out a `*corev1.ConfigMapList` as a generated client returns it after decoding (nothing is decoded). Client-go's reflector copies each item into an object of its own (meta.ExtractListWithAlloc); typedcache's reads the source through `kube.SourceWithOptions` (streaming lists off, as for client-go), whose List makes the same copies.",
	},
	"informer": {
		"Kubernetes path: typedcache's informer reads client-go's source through `kube.SourceWithOptions`; listed items are copied on both sides, and every watch event that client-go's informer reads from the source's channel reaches typedcache's reflector through the kube adapter's watch.",
		"The caches have a namespace index, as informers usually do: client-go's index function allocates the []string it returns for every event; typedcache's NamespaceIndexFunc shares one slice per namespace from a small cache, and the informer takes each event's key from its cache (indexer.KeyFunc) instead of building it. The index=none row shows the cost without the index.",
		"Latency rows run in separate processes (see above), because their medians move by a factor of several from one process to the next. Events are paced by sleeping between sends, and a sleep under a millisecond lasts about a millisecond on an otherwise idle process, so at 10k and 100k events/s events leave in bursts of about 10 and 100. The sender yields after each send, so that the goroutines the send woke run before the sender sleeps, as they do after a real source's send; without the yield, the sleep's own cost was counted as latency on both sides (arming the earliest timer wakes the network poller with a syscall, which took up to 200 µs on a 2-vCPU VM while the woken goroutine waited behind it). With one handler, typedcache's reflector applies each event and pushes it to the handler's buffer itself while its DeltaFIFO is idle (informer.route): two goroutine wakeups from send to handler, against client-go's four. The p99 is the tail of those wakeups, including a wakeup of an idle processor, which is slow on a VM.",
		"Writes while listing come in two shapes. Flat out (listers=N): the sender fills the watch's buffer as fast as the informer drains it, in object order. In flight (inflight=10): the shape of client-go's own BenchmarkSharedIndexInformer, whose run with 10 readers gave the ~100 writes/s the informer issue quotes for client-go and sets its ≥ 20x target against: each event modifies an object picked at random, and the sender waits while 10 of its events have not reached the handler. Flat out, client-go keeps 15k–18k writes/s, its pipeline always holding events for its writer whenever it gets the lock, and both sides are bound by the share of the 2 processors that the source and the informer get among 10 busy listers. In flight, client-go carries at most 10 events at a time through four goroutines and the store's write lock, which the 10 listers take in turn, so a lock handoff carries one event; typedcache's writers never wait for listers; a write copies the block it changes only while a listing is still reading that block (copy-on-write), and changes it in place otherwise.",
	},
	scaleArea: {
		"All on the Kubernetes path. Heap per cached object is the live heap after a collection, objects included, divided by the objects: it tends to the object's own size as objects grow (Pods of 12 kB here), which both sides store alike.",
		"Relist: the synced informer's watch ends with an expired-version error (HTTP 410) and it lists 1M objects again, 1% of them changed (a third updated, a third deleted, a third new); the time runs from the reflector's List call to the handler's notification of an object created after the relist. Client-go v0.37 also tells a handler without a resync period about every object the relist found unchanged (notified/object ≈ 1), typedcache only about the changes (≈ 0.01; see the informer package's differences from client-go).",
		"Factory: 50 informers of distinct API resources (Pods to DeviceClasses), each with a namespace index and one handler, over idle in-memory clients (empty lists, quiet watches), measured once every informer watches: typedcache's informer.Factory over kube.SourceWithOptions, client-go's SharedInformerFactory with InformerFor as its generated informers use it.",
	},
	serverArea: {
		"BenchmarkInitialSync: a fresh informer of each library fills its cache from the server (streaming: a watch with sendInitialEvents; classic: a paginated list, then a watch); each row first syncs once untimed, since the first informer to read objects the server has just written waits for its watch cache to catch up. BenchmarkUpdates: an informer synced with 100 objects receives 10,000 updates whose responses were recorded once from the live server and are replayed from memory, so that the client's own work is measured, decoding included, and not how fast the server writes. Source: kube/integration/bench_test.go.",
		"Both libraries read through the same client-go typed clientset, configured for protobuf (the default for built-in types) or for JSON (`rest.Config.ContentType`, on both sides; custom resources are always JSON). ConfigMaps have 3 labels and 3 data entries of 32 bytes; Pods are a Deployment's replicas as a kubelet reports them, about 6 kB of JSON with the managedFields of two writers.",
		"cpu-ns is the process's user + system CPU time (getrusage) around the timed region, divided by the objects or updates: decoding, TLS, HTTP/2 and garbage collection on every goroutine count. Heap per cached object is the live heap while the synced informer runs minus the live heap once it has stopped, each after a collection, divided by the objects.",
		"typedcache decodes the responses of client-go's generated typed clients itself (protobuf through a decoder compiled per type from the types' protobuf tags, tested equal to their generated Unmarshal; JSON token by token, the metadata, times and maps of strings by code of its own and the rest through go-json-experiment, with client-go's semantics, held to client-go's decoding by a fuzz test). The objects it decodes share their repeated strings and managedFields field sets as they are decoded, and, since these informers have no Transform and so list and watch read-only, their equal maps (labels, annotations, data, resource lists) and, on protobuf, their equal slices of messages (containers, volumes) and messages (probes, resources, volume sources) as they are decoded, found by the bytes of their encoding and not decoded again (`kube.Options.MapSharing`, whose default these rows keep). client-go's objects share nothing. The nomanaged rows drop managedFields on both sides: `kube.Options.DropManagedFields` for typedcache, a transform for client-go (controller-runtime's TransformStripManagedFields).",
	},
	priorityArea:   priorityNotes,
	controllerArea: controllerNotes,
	customArea: {
		"The reflector and informer rows with typedcache reading its own reflector.ListerWatcher (internal/source.Typed), which hands over pointers built before the timer and copies nothing: the path of custom sources. Client-go's side is the same as on the Kubernetes path. No targets: they apply to the Kubernetes path.",
	},
}

// A target is a goal a row must meet, stated as in the package issues.
type target struct {
	text string
	met  func(cg, tc, ratio float64) bool
	// ratio is the ratio the target amounts to, for the chart's marker;
	// 0 when the target is not a ratio.
	ratio float64
}

// ratioAtLeast is met when typedcache is at least x times better.
func ratioAtLeast(x float64) *target {
	return &target{
		text:  fmt.Sprintf("≥ %gx", x),
		met:   func(_, _, r float64) bool { return r >= x },
		ratio: x,
	}
}

// costAtMost is met when typedcache's cost is at most fraction times
// client-go's.
func costAtMost(fraction float64) *target {
	return &target{
		text:  fmt.Sprintf("≤ %gx client-go", fraction),
		met:   func(cg, tc, _ float64) bool { return tc <= cg*fraction },
		ratio: 1 / fraction,
	}
}

// atMost is met when typedcache's value is at most v.
func atMost(v float64, text string) *target {
	return &target{text: text, met: func(_, tc, _ float64) bool { return tc <= v }}
}

// atMostAndNoWorse is met when typedcache's cost is at most v and at most
// client-go's.
func atMostAndNoWorse(v float64, text string) *target {
	return &target{text: text, met: func(cg, tc, _ float64) bool { return tc <= v && tc <= cg }, ratio: 1}
}

// higherIsBetter reports whether a larger value of unit is better: rates
// are, costs are not.
func higherIsBetter(unit string) bool {
	return strings.HasSuffix(unit, "/s")
}

// ratio returns how many times better typedcache is than client-go in
// unit: client-go ÷ typedcache for costs, typedcache ÷ client-go for
// rates. A zero cost against a non-zero one is +Inf; two zeros are 1.
// The unit "" means a cost.
func ratio(cg, tc float64, unit string) float64 {
	num, den := cg, tc
	if higherIsBetter(unit) {
		num, den = tc, cg
	}
	switch {
	case den == 0 && num == 0:
		return 1
	case den == 0:
		return math.Inf(1)
	}
	return num / den
}

// rows lists every reported metric in table order, with the targets of the
// package issues. Benchmarks keep their full-size names in -quick mode,
// where sizes are divided by ten.
var rows = append(withCustomSources(withPriorityRows(append([]row{
	{"queue", "BenchmarkQueueAddGetDone/keys=distinct", "Add/Get/Done, 1000 distinct keys", "ns/item", ratioAtLeast(1.5)},
	{"queue", "BenchmarkQueueAddGetDone/keys=distinct", "Add/Get/Done, 1000 distinct keys (op: 1000 items)", "allocs/op", atMost(0, "0 allocs")},
	{"queue", "BenchmarkQueueAddGetDone/keys=duplicates", "Add/Get/Done, 1000 adds of 10 keys", "ns/item", nil},
	{"queue", "BenchmarkQueueAddGetDone/keys=duplicates", "Add/Get/Done, 1000 adds of 10 keys (op: 1000 adds)", "allocs/op", nil},
	{"queue", "BenchmarkQueueProducersConsumers", "4 producers × 4 consumers, 1M items", "items/s", ratioAtLeast(2)},
	{"queue", "BenchmarkQueueProducersConsumers", "4 producers × 4 consumers, 1M items", "allocs/item", nil},
	{"queue", "BenchmarkQueueAddRateLimited", "AddRateLimited + Forget", "ns/item", ratioAtLeast(3)},
	{"queue", "BenchmarkQueueAddRateLimited", "AddRateLimited + Forget", "allocs/item", atMost(1, "≤ 1 alloc")},
	{"queue", "BenchmarkQueueAddAfterThroughput", "AddAfter 100k, delays ≤ 10ms, then drain once all are due", "items/s", ratioAtLeast(3)},
	{"queue", "BenchmarkQueueAddAfterLateness", "AddAfter at 10k items/s, delays ≤ 10ms, 1 consumer: lateness", "lateness-p50-ns", nil},
	{"queue", "BenchmarkQueueAddAfterLateness", "AddAfter at 10k items/s, delays ≤ 10ms, 1 consumer: lateness", "lateness-p99-ns", atMostAndNoWorse(200e3, "≤ 200µs, ≤ client-go")},

	{"indexer", "BenchmarkIndexerAdd", "Add 100k objects in 100 namespaces", "ns/object", nil},
	{"indexer", "BenchmarkIndexerAdd", "Add 100k objects in 100 namespaces", "allocs/object", nil},
	{"indexer", "BenchmarkIndexerAdd", "heap per object after GC", "heap-B/object", costAtMost(1)},
	{"indexer", "BenchmarkIndexerUpdate/labels=unchanged", "Update, index values unchanged", "ns/op", ratioAtLeast(2)},
	{"indexer", "BenchmarkIndexerUpdate/labels=unchanged", "Update, index values unchanged", "allocs/op", nil},
	{"indexer", "BenchmarkIndexerUpdate/labels=changed", "Update, label index value changed", "ns/op", ratioAtLeast(2)},
	{"indexer", "BenchmarkIndexerUpdate/labels=changed", "Update, label index value changed", "allocs/op", nil},
	{"indexer", "BenchmarkIndexerGetByKey", "GetByKey in 100k", "ns/op", nil},
	{"indexer", "BenchmarkIndexerGetByKey", "GetByKey in 100k", "allocs/op", atMost(0, "0 allocs")},
	{"indexer", "BenchmarkIndexerByIndex", "ByIndex(namespace), 1000 of 100k", "ns/op", nil},
	{"indexer", "BenchmarkIndexerByIndex", "ByIndex(namespace), 1000 of 100k", "allocs/op", nil},
	{"indexer", "BenchmarkIndexerList", "List all 100k", "ns/object", nil},
	{"indexer", "BenchmarkIndexerIterate", "visit all 100k (typedcache All, client-go List)", "ns/object", nil},
	{"indexer", "BenchmarkIndexerIterate", "visit all 100k (typedcache All, client-go List)", "allocs/op", atMost(0, "0 allocs")},
	{"indexer", "BenchmarkIndexerUpdateRandom/list=never", "Update in random order", "ns/update", ratioAtLeast(2)},
	{"indexer", "BenchmarkIndexerUpdateRandom/list=every1000", "Update in random order, List of all every 1000 updates", "ns/update", ratioAtLeast(2)},
	{"indexer", "BenchmarkIndexerUpdateRandom/list=every100", "Update in random order, List of all every 100 updates", "ns/update", ratioAtLeast(2)},
	{"indexer", "BenchmarkIndexerUpdateRandom/list=every100", "Update in random order, List of all every 100 updates", "B/update", nil},
	{"indexer", "BenchmarkIndexerReadsWhileWriting/read=get", "lister Get while a goroutine updates", "reads/s", ratioAtLeast(2)},
	{"indexer", "BenchmarkIndexerReadsWhileWriting/read=get", "lister Get while a goroutine updates: the writer", "writes/s", nil},
	{"indexer", "BenchmarkIndexerReadsWhileWriting/read=byindex", "ByIndex(namespace) while a goroutine updates", "reads/s", ratioAtLeast(2)},
	{"indexer", "BenchmarkIndexerReadsWhileWriting/read=byindex", "ByIndex(namespace) while a goroutine updates: the writer", "writes/s", nil},

	{"deltafifo", "BenchmarkDeltaFIFOAddUpdatePop", "Add + Update, then Pop, 10k objects", "ns/delta", ratioAtLeast(3)},
	{"deltafifo", "BenchmarkDeltaFIFOAddUpdatePop", "Add + Update, then Pop, 10k objects", "allocs/delta", atMost(1, "≤ 1 alloc")},
	{"deltafifo", "BenchmarkDeltaFIFOShallow/against=DeltaFIFO", "Add + Update, then Pop, at most 8 keys queued", "ns/delta", ratioAtLeast(2)},
	{"deltafifo", "BenchmarkDeltaFIFOShallow/against=DeltaFIFO", "Add + Update, then Pop, at most 8 keys queued", "allocs/delta", nil},
	{"deltafifo", "BenchmarkDeltaFIFOShallow/against=RealFIFO", "the same, PopBatch, against client-go's RealFIFO", "ns/delta", nil},
	{"deltafifo", "BenchmarkDeltaFIFOShallow/against=RealFIFO", "the same, PopBatch, against client-go's RealFIFO", "allocs/delta", nil},
	{"deltafifo", "BenchmarkDeltaFIFOReplace", "Replace 100k (1% churn)", "ns/object", ratioAtLeast(3)},
	{"deltafifo", "BenchmarkDeltaFIFOReplace", "Replace 100k (1% churn)", "B/object", costAtMost(0.5)},

	{"reflector", "BenchmarkReflectorSync/objects=10k/path=kube", "initial sync, 10k objects", "ns/object", nil},
	{"reflector", "BenchmarkReflectorSync/objects=100k/path=kube", "initial sync, 100k objects", "ns/object", ratioAtLeast(2)},
	{"reflector", "BenchmarkReflectorSync/objects=100k/path=kube", "initial sync, 100k objects", "B/object", ratioAbove1("fewer than client-go")},

	{"informer", "BenchmarkInformerSync/objects=10k/path=kube", "Run to HasSynced, 10k objects", "ns/object", nil},
	{"informer", "BenchmarkInformerSync/objects=100k/path=kube", "Run to HasSynced, 100k objects", "ns/object", ratioAtLeast(2)},
	{"informer", "BenchmarkInformerSync/objects=100k/path=kube", "Run to HasSynced, 100k objects", "B/object", costAtMost(0.6)},
	{"informer", "BenchmarkInformerSync/objects=100k/path=kube", "heap per cached object", "heap-B/object", costAtMost(1)},
	{"informer", "BenchmarkInformerEvents/handlers=1/path=kube", "1M watch events over 10k objects, 1 handler", "events/s", ratioAtLeast(3)},
	{"informer", "BenchmarkInformerEvents/handlers=1/path=kube", "1M watch events over 10k objects, 1 handler", "B/event", nil},
	{"informer", "BenchmarkInformerEvents/handlers=1/path=kube", "1M watch events over 10k objects, 1 handler", "allocs/event", atMost(1, "≤ 1 alloc")},
	{"informer", "BenchmarkInformerEvents/handlers=4/path=kube", "1M watch events over 10k objects, 4 handlers", "events/s", ratioAtLeast(3)},
	{"informer", "BenchmarkInformerEvents/handlers=4/path=kube", "1M watch events over 10k objects, 4 handlers", "allocs/event", nil},
	{"informer", "BenchmarkInformerEvents/handlers=1,index=none/path=kube", "1M watch events, 1 handler, no index", "events/s", nil},
	{"informer", "BenchmarkInformerEvents/handlers=1,index=none/path=kube", "1M watch events, 1 handler, no index", "allocs/event", nil},
	{"informer", "BenchmarkInformerLatency/rate=1k/path=kube", "send-to-handler latency at 1k events/s", "p50-ns", nil},
	{"informer", "BenchmarkInformerLatency/rate=1k/path=kube", "send-to-handler latency at 1k events/s", "p99-ns", nil},
	{"informer", "BenchmarkInformerLatency/rate=10k/path=kube", "send-to-handler latency at 10k events/s", "p50-ns", nil},
	{"informer", "BenchmarkInformerLatency/rate=10k/path=kube", "send-to-handler latency at 10k events/s", "p99-ns", ratioAtLeast(3)},
	{"informer", "BenchmarkInformerLatency/rate=100k/path=kube", "send-to-handler latency at 100k events/s", "p50-ns", nil},
	{"informer", "BenchmarkInformerLatency/rate=100k/path=kube", "send-to-handler latency at 100k events/s", "p99-ns", nil},
	{"informer", "BenchmarkInformerWritesWhileListing/listers=0/path=kube", "writes while 0 goroutines list the cache", "writes/s", nil},
	{"informer", "BenchmarkInformerWritesWhileListing/listers=1/path=kube", "writes while 1 goroutine lists the cache", "writes/s", nil},
	{"informer", "BenchmarkInformerWritesWhileListing/listers=10/path=kube", "writes while 10 goroutines list the cache", "writes/s", nil},
	{"informer", "BenchmarkInformerWritesWhileListing/listers=0,inflight=10/path=kube", "writes, ≤ 10 in flight, random objects, 0 listers", "writes/s", nil},
	{"informer", "BenchmarkInformerWritesWhileListing/listers=1,inflight=10/path=kube", "writes, ≤ 10 in flight, random objects, 1 lister", "writes/s", nil},
	{"informer", "BenchmarkInformerWritesWhileListing/listers=10,inflight=10/path=kube", "writes, ≤ 10 in flight, random objects, 10 listers", "writes/s", ratioAtLeast(20)},

	{scaleArea, "BenchmarkInformerSync/objects=1M/path=kube", "Run to HasSynced, 1M objects", "ns/object", nil},
	{scaleArea, "BenchmarkInformerSync/objects=1M/path=kube", "Run to HasSynced, 1M objects", "B/object", nil},
	{scaleArea, "BenchmarkInformerSync/objects=1M/path=kube", "heap per cached object, 1M objects", "heap-B/object", nil},
	{scaleArea, "BenchmarkInformerRelist/objects=1M,churn=1%/path=kube", "relist of 1M objects, 1% changed", "ns/object", nil},
	{scaleArea, "BenchmarkInformerRelist/objects=1M,churn=1%/path=kube", "relist of 1M objects, 1% changed", "B/object", nil},
	{scaleArea, "BenchmarkInformerRelist/objects=1M,churn=1%/path=kube", "relist of 1M objects, 1% changed: handler calls", "notified/object", nil},
	{scaleArea, "BenchmarkInformerSync/objects=10k,kind=pod/path=kube", "Run to HasSynced, 10k Pods", "ns/object", nil},
	{scaleArea, "BenchmarkInformerSync/objects=100k,kind=pod/path=kube", "Run to HasSynced, 100k Pods", "ns/object", nil},
	{scaleArea, "BenchmarkInformerSync/objects=100k,kind=pod/path=kube", "Run to HasSynced, 100k Pods", "B/object", nil},
	{scaleArea, "BenchmarkInformerSync/objects=100k,kind=pod/path=kube", "heap per cached Pod", "heap-B/object", nil},
	{scaleArea, "BenchmarkInformerEvents/handlers=1,kind=pod/path=kube", "1M watch events over 10k Pods, 1 handler", "events/s", nil},
	{scaleArea, "BenchmarkInformerEvents/handlers=1,kind=pod/path=kube", "1M watch events over 10k Pods, 1 handler", "allocs/event", nil},
	{scaleArea, "BenchmarkInformerEvents/handlers=16/path=kube", "250k watch events over 10k objects, 16 handlers", "events/s", ratioAtLeast(3)},
	{scaleArea, "BenchmarkInformerEvents/handlers=16/path=kube", "250k watch events over 10k objects, 16 handlers", "allocs/event", nil},
	{scaleArea, "BenchmarkInformerFactory/informers=50/path=kube", "factory of 50 idle informers: start to synced", "ns/informer", nil},
	{scaleArea, "BenchmarkInformerFactory/informers=50/path=kube", "factory of 50 idle informers: live heap", "heap-B", nil},
	{scaleArea, "BenchmarkInformerFactory/informers=50/path=kube", "factory of 50 idle informers: goroutine stacks", "stack-B", nil},
	{scaleArea, "BenchmarkInformerFactory/informers=50/path=kube", "factory of 50 idle informers", "goroutines", nil},
}, controllerRows...))), serverRows()...)

// ratioAbove1 is met when typedcache is strictly better.
func ratioAbove1(text string) *target {
	return &target{text: text, met: func(cg, tc, _ float64) bool { return tc < cg }, ratio: 1}
}
