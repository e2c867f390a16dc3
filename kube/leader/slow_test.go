package leader_test

import "time"

// slowLatency is longer than LeaseDuration-RenewDeadline (5 s), so that a
// leader measuring its deadline from a response's arrival would still
// lead when another candidate takes over, and shorter than
// RenewDeadline-RetryPeriod (8 s), so that the response arrives before
// the deadline of the renewal sent one retry period earlier.
const slowLatency = 7 * time.Second
