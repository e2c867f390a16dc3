package main

import (
	"fmt"
	"strings"
)

// shardBenches are the real-server benchmark of sharded replicas
// (kube/shard), one per number of replicas: typedcache alone, since
// client-go has no sharding.
var shardBenches = []struct {
	replicas int
	bench    string
}{
	{1, "BenchmarkShardReplicas/replicas=1"},
	{2, "BenchmarkShardReplicas/replicas=2"},
	{3, "BenchmarkShardReplicas/replicas=3"},
}

// shardUnit is the sharding benchmark's metric.
const shardUnit = "reconciles/s"

// writeSharding writes the table of reconciles per second by number of
// sharded replicas, when every row was measured.
func writeSharding(b *strings.Builder, res *results) {
	vs := make([]float64, len(shardBenches))
	for i, s := range shardBenches {
		v, ok := res.median(s.bench, implTypedcache, shardUnit)
		if !ok || v <= 0 {
			return
		}
		vs[i] = v
	}
	b.WriteString("\nSharded replicas (kube/shard, typedcache alone: client-go has none), `BenchmarkShardReplicas`: 300 ConfigMaps, every key queued in every replica, one worker per replica, a reconcile that sleeps 10 ms (waits, as on a request elsewhere, so that the 2 CPUs are not the limit); median reconciles per second, and the speed-up over one replica:\n\n")
	b.WriteString("| replicas | reconciles/s | × one replica |\n|--:|--:|--:|\n")
	for i, s := range shardBenches {
		fmt.Fprintf(b, "| %d | %s | %s |\n", s.replicas, formatValue(vs[i]), formatRatio(vs[i]/vs[0]))
	}
}
