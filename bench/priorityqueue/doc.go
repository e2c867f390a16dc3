// Package priorityqueue compares typedcache's priority work queue
// (queue.TypedPriorityQueue) with controller-runtime's
// (sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue) and with
// client-go's rate-limiting queue, which has no priorities and serves in
// FIFO order: the same workloads through all three, as the sub-benchmarks
// impl=typedcache, impl=controller-runtime and impl=client-go.
//
// The throughput benchmark runs in real time. The restart and starvation
// scenarios are about the order in which a queue serves its items, not
// about its speed, so they run in testing/synctest bubbles, where time is
// virtual and advances only when every goroutine waits: a wait measured
// there is the time items spent queued behind others while the workers
// were busy, the same in every run. A bubble needs a *testing.T, so each
// scenario benchmark runs its scenario in a child process (this test
// binary, running TestScenarioChild) and reports what the child measured.
package priorityqueue
