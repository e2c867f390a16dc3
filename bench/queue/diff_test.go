package queue_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"

	"github.com/typedcache/typedcache/bench/internal/diffcheck"
	"github.com/typedcache/typedcache/queue"
)

// opKind is one operation of a differential work-queue test.
type opKind uint8

const (
	opAdd       opKind = iota // Add(key)
	opGet                     // Get, when client-go's Get would not block
	opDone                    // Done of the n-th item held by the test
	opStrayDone               // Done of a key the test does not hold
	opShutDown                // ShutDown
)

// keySpace is small so that duplicates and re-adds while processing are
// frequent.
const keySpace = 6

type queueOp struct {
	kind opKind
	n    int
}

func (o queueOp) String() string {
	switch o.kind {
	case opAdd:
		return fmt.Sprintf("Add(k%d)", o.n)
	case opGet:
		return "Get()"
	case opDone:
		return fmt.Sprintf("Done(held item #%d)", o.n)
	case opStrayDone:
		return fmt.Sprintf("Done(k%d) of an item not held", o.n)
	}
	return "ShutDown()"
}

func decodeQueueOps(data []byte) []queueOp {
	d := diffcheck.NewDecoder(data)
	var ops []queueOp
	for d.More() {
		// ShutDown is rare (1 in 256) so that most sequences run long
		// before it.
		switch r := d.Byte(); {
		case r < 100:
			ops = append(ops, queueOp{opAdd, d.Intn(keySpace)})
		case r < 180:
			ops = append(ops, queueOp{kind: opGet})
		case r < 235:
			ops = append(ops, queueOp{opDone, d.Intn(keySpace)})
		case r < 255:
			ops = append(ops, queueOp{opStrayDone, d.Intn(keySpace)})
		default:
			ops = append(ops, queueOp{kind: opShutDown})
		}
	}
	return ops
}

// runQueueOps drives both queues with ops and returns the first
// divergence. client-go's semantics are the reference, except for two
// improvements documented in typedcache's queue package, which are checked
// rather than skipped:
//
//   - Done of an item that is queued but not processing: client-go queues it
//     a second time; typedcache ignores the call. The op is applied to
//     typedcache only, which must keep its length.
//   - Get after ShutDown, with nothing queued but an item re-added while it
//     is processing: client-go reports shutdown at once; typedcache waits
//     for that item's Done and hands it out again. The test checks that
//     typedcache's Get blocks.
func runQueueOps(_ *testing.T, ops []queueOp) string {
	ctx := context.Background()
	cg := workqueue.NewTyped[string]()
	tc := queue.New[string](queue.Options{})
	defer cg.ShutDown()
	defer tc.ShutDown()

	var held []string              // handed out by Get, not yet Done, in order
	dirtyHeld := map[string]bool{} // held and added again before ShutDown
	shutDown := false
	checkedBlocking := false
	for i, op := range ops {
		at := func(format string, args ...any) string {
			return fmt.Sprintf("op %d %v: ", i, op) + fmt.Sprintf(format, args...)
		}
		switch op.kind {
		case opAdd:
			k := fmt.Sprintf("k%d", op.n)
			if slices.Contains(held, k) && !shutDown {
				dirtyHeld[k] = true
			}
			cg.Add(k)
			tc.Add(k)
		case opGet:
			if cg.Len() == 0 && !shutDown {
				continue // client-go's Get would block
			}
			if cg.Len() == 0 && len(dirtyHeld) > 0 {
				// Documented difference: typedcache waits for the dirty item.
				if checkedBlocking {
					continue
				}
				checkedBlocking = true
				short, cancel := context.WithTimeout(ctx, time.Millisecond)
				item, err := tc.Get(short)
				cancel()
				if !errors.Is(err, context.DeadlineExceeded) {
					return at("typedcache Get = %q, %v after ShutDown with item re-added while processing; want it to block", item, err)
				}
				continue
			}
			want, cgShut := cg.Get()
			got, err := tc.Get(ctx)
			if tcShut := errors.Is(err, queue.ErrShutDown); cgShut != tcShut || (err != nil && !tcShut) {
				return at("client-go Get = %q, shutdown %v; typedcache Get = %q, %v", want, cgShut, got, err)
			}
			if cgShut {
				continue
			}
			if got != want {
				return at("client-go Get = %q; typedcache Get = %q", want, got)
			}
			held = append(held, got)
		case opDone:
			if len(held) == 0 {
				continue
			}
			j := op.n % len(held)
			k := held[j]
			held = slices.Delete(held, j, j+1)
			delete(dirtyHeld, k)
			checkedBlocking = false
			cg.Done(k)
			tc.Done(k)
		case opStrayDone:
			k := fmt.Sprintf("k%d", op.n)
			if slices.Contains(held, k) {
				continue
			}
			// Documented difference: only typedcache gets the stray Done.
			before := tc.Len()
			tc.Done(k)
			if after := tc.Len(); after != before {
				return at("typedcache Len went from %d to %d on Done of an item not processing", before, after)
			}
			continue
		case opShutDown:
			shutDown = true
			cg.ShutDown()
			tc.ShutDown()
		}
		if cl, tl := cg.Len(), tc.Len(); cl != tl {
			return at("client-go Len = %d; typedcache Len = %d", cl, tl)
		}
		if cs, ts := cg.ShuttingDown(), tc.ShuttingDown(); cs != ts {
			return at("client-go ShuttingDown = %v; typedcache ShuttingDown = %v", cs, ts)
		}
	}
	return ""
}

func TestQueueDifferential(t *testing.T) {
	n := diffcheck.Seeded(t, diffcheck.Config{Sequences: 250, Length: 800}, decodeQueueOps, runQueueOps)
	if n < 100_000 {
		t.Errorf("ran %d operations; want at least 100000", n)
	}
}

func FuzzQueueDifferential(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(diffcheck.Bytes(seed, 200))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		diffcheck.Fuzz(t, data, decodeQueueOps, runQueueOps)
	})
}
