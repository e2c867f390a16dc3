// Package queue compares typedcache's work queues with client-go's
// k8s.io/client-go/util/workqueue: benchmarks of the same workloads through
// both, and differential tests that drive both with the same random
// operations and require the same results.
//
// Queue items are object keys ("namespace/name") except where a benchmark
// needs to recover an item's number, where they are ints.
package queue
