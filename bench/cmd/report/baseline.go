package main

import "slices"

// priorityArea holds the priority queue's rows, whose ratios and targets
// are against controller-runtime's priority queue; client-go's FIFO queue,
// which has no priorities, is shown beside them.
const priorityArea = "priority queue vs controller-runtime"

// implControllerRuntime names controller-runtime's priority queue in the
// impl= component of the priority queue's benchmarks.
const implControllerRuntime = "controller-runtime"

// baselines names, for the areas whose ratios and targets are not against
// client-go, the implementation they are against.
var baselines = map[string]string{priorityArea: implControllerRuntime, controllerArea: implControllerRuntime}

// baselineOf returns the implementation the rows of area compare
// typedcache with: client-go unless baselines says otherwise.
func baselineOf(area string) string {
	if b, ok := baselines[area]; ok {
		return b
	}
	return implClientGo
}

// noWorseThan is met when typedcache's cost is at most the baseline's,
// named in the target's text.
func noWorseThan(baseline string) *target {
	return &target{text: "≤ " + baseline, met: func(base, tc, _ float64) bool { return tc <= base }, ratio: 1}
}

// priorityRows are the priority queue's rows; see the priorityqueue
// package for the workloads.
var priorityRows = []row{
	{priorityArea, "BenchmarkPriorityQueueThroughput", "Add/Get/Done, 100k keys, 1 in 4 at low priority, 2 producers × 4 workers", "items/s", ratioAtLeast(2)},
	{priorityArea, "BenchmarkPriorityQueueThroughput", "Add/Get/Done, 100k keys, 1 in 4 at low priority, 2 producers × 4 workers", "allocs/item", nil},
	{priorityArea, "BenchmarkPriorityQueueRestart", "restart, 100k items at low priority, 2000 live changes: live change's wait (virtual time)", "live-p50-ns", nil},
	{priorityArea, "BenchmarkPriorityQueueRestart", "restart, 100k items at low priority, 2000 live changes: live change's wait (virtual time)", "live-p99-ns", noWorseThan(implControllerRuntime)},
	{priorityArea, "BenchmarkPriorityQueueStarvation/backlog=0", "normal items at 90% of capacity, 10 low items: longest low wait", "low-max-wait-s", nil},
	{priorityArea, "BenchmarkPriorityQueueStarvation/backlog=0", "normal items at 90% of capacity, 10 low items: low items never served", "low-unserved", atMost(0, "all served")},
	{priorityArea, "BenchmarkPriorityQueueStarvation/backlog=30k", "the same over a backlog of 30k normal items: longest low wait", "low-max-wait-s", nil},
	{priorityArea, "BenchmarkPriorityQueueStarvation/backlog=30k", "the same over a backlog of 30k normal items: low items never served", "low-unserved", atMost(0, "all served")},
}

// priorityNotes explain the priority queue's rows.
var priorityNotes = []string{
	"Ratios and targets are against controller-runtime v0.25's priority queue (`sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue`, built with New and its default options, unnamed so that it records no metrics, like the other two queues here; low items added at handler.LowPriority, items taken with GetWithPriority, as its controllers do). The client-go columns are client-go's rate-limiting queue, which has no priorities and serves every item in FIFO order. typedcache's is TypedPriorityQueue with its default PriorityOptions, low items at PriorityLow.",
	"Throughput: 2 goroutines add 100k distinct keys in a random order, one in four at low priority, to a new queue while 4 workers take them with Get and Done; real time, from the construction to the last Done.",
	"The restart and starvation rows run in testing/synctest bubbles, in virtual time, which advances only while every goroutine waits: they measure the order in which a queue serves items while its workers are busy, not its speed. Restart: the 100k items of an informer's initial list are queued at low priority when 4 workers start, each spending 0.5–1.5ms on an item (4k items/s); 2000 live changes arrive at normal priority, 100/s on average, on distinct objects of the list; a live change's wait runs from its Add to the Get that hands it out. Starvation: 4 workers at 10ms an item (400/s), normal items (distinct keys) at 90% of that for 10 minutes, and one low-priority item every 30s from the start (10 in all); an item not served by the end of the window counts as waiting until then. With backlog=30k, 30k normal items are also queued at the start: at 90% load the workers drain them in 750s, so they stay busy with normal items for the whole window.",
	"In the restart run, a live change to an object still queued at low priority raises its priority. Both queues then place the item behind the live changes queued before it: controller-runtime's orders it by the raising add, typedcache's gives it the earlier of its deadlines (that of the low add, or that of the raising add), which here is the raising add's. Within the 100·Aging a low item yields, the two orders agree, and so do the figures; beyond it typedcache's item keeps its earlier deadline, which is what bounds its wait.",
}

// withPriorityRows returns rows with priorityRows inserted after the last
// row of the queue area.
func withPriorityRows(rows []row) []row {
	i := len(rows)
	for i > 0 && rows[i-1].area != "queue" {
		i--
	}
	return slices.Insert(rows, i, priorityRows...)
}

// withClientGo lists the areas, among those whose baseline is not
// client-go, whose tables show client-go's value beside.
var withClientGo = map[string]bool{priorityArea: true}

// clientGoCells returns, for a row of an area whose baseline is not
// client-go, the cells of client-go's median and of typedcache's ratio
// against it.
func clientGoCells(res *results, o outcome) (value, ratioText string) {
	cg, ok := res.median(o.bench, implClientGo, o.unit)
	if !ok || !o.measured {
		return "—", "—"
	}
	return formatValue(cg), formatRatio(ratio(cg, o.tc, o.unit))
}

// tableHeader returns the header of area's table: the baseline's column
// first, then typedcache's, and for an area of withClientGo, client-go's
// value and typedcache's ratio against it last.
func tableHeader(area string) string {
	base := baselineOf(area)
	if base == implClientGo || !withClientGo[area] {
		return "| workload | unit | " + base + " | typedcache | ratio | target | met | noise |\n" +
			"|---|---|--:|--:|--:|---|---|--:|\n"
	}
	return "| workload | unit | " + base + " | typedcache | ratio | target | met | noise | client-go | ratio vs client-go |\n" +
		"|---|---|--:|--:|--:|---|---|--:|--:|--:|\n"
}
