package shard_test

import (
	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/kube/shard"
)

// A Shard runs a controller.Manager's runnables on every member and
// shards the keys of its controllers; a Work over key names is the gate
// of one controller.
var (
	_ controller.Sharder   = (*shard.Shard)(nil)
	_ controller.ShardGate = (*shard.Work[string])(nil)
)
