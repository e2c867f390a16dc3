package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
)

// RunOptions configure [TypedRateLimitingQueue.Run]. The zero value runs one
// worker that retries every failure with backoff, without a cap, and logs
// each failure at [slog.LevelError].
type RunOptions[K comparable] struct {
	// Workers is the number of goroutines that process items; zero means 1.
	// Run rejects a negative count.
	Workers int

	// MaxRetries, if positive, caps the retries of a failing item: when
	// processing fails and the rate limiter has already delayed the item
	// MaxRetries times since it last succeeded (NumRequeues), Run gives up
	// on it. Zero or negative means no cap. With a limiter that tracks no
	// item (a TypedBucketRateLimiter alone), NumRequeues stays 0 and the
	// cap never applies.
	MaxRetries int

	// GiveUp, if set, is called once each time Run gives up on an item: an
	// error matching ErrTerminal, or a failure after MaxRetries retries. err
	// is that last error; errors.Is(err, ErrTerminal) tells the two apart.
	// It runs on the worker's goroutine after the item was forgotten and
	// marked Done, so it may add the item again.
	GiveUp func(ctx context.Context, item K, err error)

	// ErrorLevel, if set, picks the level at which Run logs an error
	// returned by processing, retried or terminal: return slog.LevelDebug
	// for errors that are routine for the controller, such as
	// optimistic-concurrency conflicts, so that the log shows what needs
	// attention. Nil logs every such error at slog.LevelError. Panics and
	// give-ups are logged at slog.LevelError whatever it returns, and a
	// failure caused by the end of Run's context at slog.LevelDebug. It
	// runs on the worker's goroutine and must be safe for simultaneous use
	// by the workers.
	ErrorLevel func(err error) slog.Level
}

// Run runs the worker loop every controller writes, in opts.Workers
// goroutines: each takes an item with Get, calls process with it, acts on
// the result, and calls Done. What happens to the item depends on what
// process returned:
//
//   - a nil error and a zero [Result]: the item is done; Run calls Forget
//     (outcome [Succeeded]);
//   - a nil error and Result.RequeueAfter > 0: Run calls Forget and then
//     AddAfter with that delay; nothing is logged ([Requeued]);
//   - an error matching [ErrTerminal] (see [TerminalError]): Run calls
//     Forget, logs the error at the level opts.ErrorLevel picks and calls
//     opts.GiveUp; the item is not retried ([Terminal]);
//   - any other error, or a panic (reported as a [*ProcessPanicError]):
//     Run logs it and calls AddRateLimited, so the item is retried with
//     backoff ([Failed]); after opts.MaxRetries retries it gives up
//     instead: it calls Forget, logs the give-up once at Error and calls
//     opts.GiveUp ([GaveUp]).
//
// With a non-nil error the Result is ignored. An error caused by the end of
// ctx (one matching ctx.Err() once ctx has ended) is retried, logged at
// Debug and never given up on: the item is not lost when Run stops. Each
// outcome is reported to [Metrics.Processed]; log records carry the
// queue's name (if it has one), the item and the error.
//
// Run follows the module's shutdown rule: it returns nil once ctx ends, or
// once the queue has shut down and handed out every item, and in both
// cases only after every worker has returned (process sees ctx, so a long
// call can end early). Run does not shut the queue down; call ShutDown or
// ShutDownWithDrain for that. It returns an error, at once and without
// processing anything, if opts.Workers is negative, process is nil or q is
// a zero queue.
func (q *TypedRateLimitingQueue[K]) Run(ctx context.Context, process func(context.Context, K) (Result, error), opts RunOptions[K]) error {
	switch {
	case opts.Workers < 0:
		return fmt.Errorf("queue: RunOptions.Workers must not be negative, got %d", opts.Workers)
	case process == nil:
		return errors.New("queue: Run needs a process function, got nil")
	case q.limiter == nil:
		return errors.New(notMade)
	}
	if ctx.Done() != nil {
		defer context.AfterFunc(ctx, q.wake)()
	}
	w := worker[K]{q: q, process: process, opts: opts}
	var wg sync.WaitGroup
	for range max(opts.Workers, 1) {
		wg.Go(func() {
			for w.processNext(ctx) {
			}
		})
	}
	wg.Wait()
	return nil
}

// worker is the state the goroutines of one Run share; none of it changes.
type worker[K comparable] struct {
	q       *TypedRateLimitingQueue[K]
	process func(context.Context, K) (Result, error)
	opts    RunOptions[K]
}

// processNext handles one item and reports whether the worker should go on.
func (w worker[K]) processNext(ctx context.Context) bool {
	q := w.q
	item, _, err := q.take(ctx, true)
	if err != nil {
		return false
	}
	res, err := call(ctx, item, w.process)
	outcome := w.settle(ctx, item, res, err)
	q.Done(item)
	switch outcome {
	case Failed:
		w.logFailure(ctx, item, err)
	case Terminal:
		w.log(ctx, w.level(err), "queue: terminal error, not retrying", item, err)
	case GaveUp:
		w.log(ctx, slog.LevelError, "queue: giving up after retries", item, err, "retries", w.opts.MaxRetries)
	}
	if (outcome == Terminal || outcome == GaveUp) && w.opts.GiveUp != nil {
		w.opts.GiveUp(ctx, item, err)
	}
	if q.metrics != nil {
		q.metrics.Processed(outcome)
	}
	return true
}

// settle acts on the result of processing item, before Done, and returns
// the outcome.
func (w worker[K]) settle(ctx context.Context, item K, res Result, err error) Outcome {
	q := w.q
	switch {
	case err == nil && res.RequeueAfter > 0:
		q.Forget(item)
		q.AddAfter(item, res.RequeueAfter)
		return Requeued
	case err == nil:
		q.Forget(item)
		return Succeeded
	case errors.Is(err, ErrTerminal):
		q.Forget(item)
		return Terminal
	case w.opts.MaxRetries > 0 && !interrupted(ctx, err) && q.NumRequeues(item) >= w.opts.MaxRetries:
		q.Forget(item)
		return GaveUp
	}
	q.AddRateLimited(item)
	return Failed
}

// interrupted reports whether err is the end of ctx rather than a failure
// of the item.
func interrupted(ctx context.Context, err error) bool {
	cerr := ctx.Err()
	return cerr != nil && errors.Is(err, cerr)
}

// logFailure logs an error that will be retried.
func (w worker[K]) logFailure(ctx context.Context, item K, err error) {
	if p, ok := errors.AsType[*ProcessPanicError](err); ok {
		w.log(ctx, slog.LevelError, "queue: processing panicked, retrying", item, err, "stack", string(p.Stack))
		return
	}
	level := w.level(err)
	if interrupted(ctx, err) {
		level = slog.LevelDebug
	}
	w.log(ctx, level, "queue: processing failed, retrying", item, err)
}

// level returns the level at which err is logged.
func (w worker[K]) level(err error) slog.Level {
	if w.opts.ErrorLevel == nil {
		return slog.LevelError
	}
	return w.opts.ErrorLevel(err)
}

// log writes one record about item, with the queue's name if it has one.
func (w worker[K]) log(ctx context.Context, level slog.Level, msg string, item K, err error, extra ...any) {
	logger := w.q.logger
	if !logger.Enabled(ctx, level) {
		return
	}
	args := make([]any, 0, 6+len(extra))
	if w.q.name != "" {
		args = append(args, "queue", w.q.name)
	}
	args = append(args, "item", item, "error", err)
	logger.Log(ctx, level, msg, append(args, extra...)...)
}
