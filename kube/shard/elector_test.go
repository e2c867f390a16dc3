package shard_test

import (
	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/kube/shard"
)

// A Shard runs a controller.Manager's runnables on every member.
var _ controller.Elector = (*shard.Shard)(nil)
