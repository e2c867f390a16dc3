package fanout

// MarkUpstreamSynced records that the listener has been pushed every
// initial-list add it will receive: Synced is closed once they have all
// been delivered (or merged away by a Coalesce buffer). A stopped
// listener dropped whatever was pushed after its stop, so it is never
// synced by this mark.
func (l *Listener[T]) MarkUpstreamSynced() {
	l.mu.Lock()
	if !l.stopped {
		l.upstreamSynced = true
		l.checkSyncedLocked()
	}
	l.mu.Unlock()
}

// Synced returns a channel that is closed once MarkUpstreamSynced was
// called and every initial-list add pushed before it has been delivered
// or merged away.
func (l *Listener[T]) Synced() <-chan struct{} { return l.synced }

// finishInitial records that n initial-list adds were delivered.
func (l *Listener[T]) finishInitial(n int) {
	if n == 0 {
		return
	}
	l.mu.Lock()
	l.initialPending -= n
	l.checkSyncedLocked()
	l.mu.Unlock()
}

// checkSyncedLocked closes synced once every initial-list add pushed has
// been delivered after upstream sync. Requires l.mu held.
func (l *Listener[T]) checkSyncedLocked() {
	if l.upstreamSynced && l.initialPending == 0 {
		select {
		case <-l.synced:
		default:
			close(l.synced)
		}
	}
}
