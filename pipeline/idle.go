package pipeline

// WaitIdle blocks until no run or revert holds the slot. A shutdown calls it
// after cancelling the runs: a run that has not begun release stops at its
// next step, while a release under way is never cut — it completes or is
// rolled back, and its audit row is written, before WaitIdle returns. Only
// then may the caller close the audit store and the image connection.
func (p *Pipeline) WaitIdle() {
	for {
		p.slot.mu.Lock()
		busy, freed := p.slot.busy, p.slot.freed
		p.slot.mu.Unlock()
		if !busy {
			return
		}
		<-freed
	}
}
