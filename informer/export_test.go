package informer

import (
	"time"

	"github.com/typedcache/typedcache/keys"
)

// ResyncPeriods returns the resync period in effect for reg and the
// informer's check period.
func ResyncPeriods[T keys.Object](inf *Informer[T], reg *Registration[T]) (handler, check time.Duration) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	return reg.l.ResyncPeriod(), inf.check
}

// RetiredLimit is how many replaced or deleted objects the cache mutation
// detector keeps.
const RetiredLimit = retiredLimit
