package deltafifo

// A drained FIFO releases its slots when it has more than keep slots
// (defaultKeepSlots unless a test sets it) and more than releaseMargin times
// the most that held deltas at once during the last releaseBlock to
// 2*releaseBlock-1 drains.
const (
	defaultKeepSlots = 1024
	releaseMargin    = 2
	releaseBlock     = 256
)

// releasePolicy decides, at each drain, whether a FIFO gives its memory
// back. A burst, such as a large list, thus gives its memory back at the
// drain that ends it, unless the FIFO's recent traffic needed half of it;
// a FIFO whose traffic keeps needing its size, with spikes as the producer
// runs ahead of the consumer, keeps it, sparing the producer a new slot and
// index entry per key. newReleasePolicy makes the default policy; a zero
// keep lets a FIFO release however few slots it has.
type releasePolicy struct {
	// keep is the number of slots a drained FIFO always keeps.
	keep int
	// peakNow is the most slots that held deltas at once between two
	// drains, over the drains of the current block; drains counts the
	// drains of that block so far, and peakBefore is peakNow of the
	// previous block.
	peakNow, peakBefore int
	drains              int
}

func newReleasePolicy() releasePolicy { return releasePolicy{keep: defaultKeepSlots} }

// drained records a drain after which peak slots had held deltas at once,
// and reports whether a FIFO of size slots should release them: when size
// is above keep and above releaseMargin times the peaks of the current
// and the previous block, this drain excluded.
func (p *releasePolicy) drained(size, peak int) bool {
	recent := max(p.peakNow, p.peakBefore)
	p.peakNow = max(p.peakNow, peak)
	if p.drains++; p.drains == releaseBlock {
		p.peakBefore, p.peakNow, p.drains = p.peakNow, 0, 0
	}
	return size > p.keep && size > releaseMargin*recent
}
