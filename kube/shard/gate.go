package shard

import (
	"fmt"

	"github.com/typedcache/typedcache/controller"
)

// Gate makes s shard the keys of a controller.Controller: a
// controller.Manager whose ManagerOptions.Elector is s calls it for each
// controller it runs, before anything starts, and the controller's
// workers then ask the returned gate, a *Work[string] over the key names,
// before each reconcile. The keys this member gains are walked from
// keys.All (the controller's primary informer's cache) and queued, with
// the parked ones, through keys.Add. name, the controller's, is not
// used: keys are owned by their names alone, so controllers that name
// their keys alike share the same assignment. Gate returns an error
// wrapping ErrInvalid for a nil keys.
func (s *Shard) Gate(name string, keys controller.ShardKeys) (controller.ShardGate, error) {
	if keys == nil {
		return nil, fmt.Errorf("%w: controller %s: nil keys", ErrInvalid, name)
	}
	all := func(yield func(string) bool) { keys.All()(yield) }
	w, err := newWork(s, keys.Add, func(k string) string { return k }, all)
	if err != nil {
		return nil, err
	}
	return w, nil
}
