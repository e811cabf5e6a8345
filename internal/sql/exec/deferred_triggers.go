package exec

import (
	"github.com/tidal-db/tidal/internal/catalog"
)

// DeferredTriggers is a transaction's queue of deferred constraint
// trigger events and its SET CONSTRAINTS state (PostgreSQL's
// afterTriggers.events beyond the query level, and SetConstraintState).
// The session owns one per transaction: events carry the subtransaction
// level that queued them, so rolling back a savepoint discards its
// events, and releasing it hands them to the enclosing level.
type DeferredTriggers struct {
	// Level is the current subtransaction nesting level (1: top).
	Level  func() int
	events []deferredEvent
	// all is SET CONSTRAINTS ALL's mode (nil: not said); byTrigger a
	// named constraint's mode, by its trigger's OID.
	all       *bool
	byTrigger map[uint32]bool
}

type deferredEvent struct {
	ev    *triggerEvent
	level int
}

// DeferredTriggerQueue is what a session gives the executor to queue
// deferred constraint triggers on.
type DeferredTriggerQueue interface {
	DeferredTriggers() *DeferredTriggers
}

func (c *Ctx) deferredTriggers() *DeferredTriggers {
	if s, ok := c.Session.(DeferredTriggerQueue); ok {
		return s.DeferredTriggers()
	}
	return nil
}

// isDeferred: trigger t's events wait for COMMIT (or SET CONSTRAINTS …
// IMMEDIATE) now.
func (d *DeferredTriggers) isDeferred(t *catalog.Trigger) bool {
	if !t.Deferrable {
		return false
	}
	if v, ok := d.byTrigger[t.OID]; ok {
		return v
	}
	if d.all != nil {
		return *d.all
	}
	return t.InitDeferred
}

func (d *DeferredTriggers) add(e *triggerEvent) {
	level := 1
	if d.Level != nil {
		level = d.Level()
	}
	d.events = append(d.events, deferredEvent{ev: e, level: level})
}

// AtSubAbort discards the events of the levels above level.
func (d *DeferredTriggers) AtSubAbort(level int) {
	kept := d.events[:0]
	for _, e := range d.events {
		if e.level <= level {
			kept = append(kept, e)
		}
	}
	d.events = kept
}

// AtSubCommit gives the events of the levels above level to level.
func (d *DeferredTriggers) AtSubCommit(level int) {
	for i := range d.events {
		if d.events[i].level > level {
			d.events[i].level = level
		}
	}
}

// Reset forgets everything (the transaction ended).
func (d *DeferredTriggers) Reset() {
	d.events, d.all, d.byTrigger = nil, nil, nil
}

// SetConstraints is SET CONSTRAINTS: ALL (triggers nil) or the triggers
// of the named constraints become DEFERRED or IMMEDIATE. Events of
// constraints made IMMEDIATE fire now, as in PostgreSQL.
func (d *DeferredTriggers) SetConstraints(c *Ctx, triggers []uint32, deferred bool) error {
	if triggers == nil {
		v := deferred
		d.all, d.byTrigger = &v, nil
	} else {
		if d.byTrigger == nil {
			d.byTrigger = map[uint32]bool{}
		}
		for _, oid := range triggers {
			d.byTrigger[oid] = deferred
		}
	}
	if deferred {
		return nil
	}
	return d.fire(c, func(t *catalog.Trigger) bool { return !d.isDeferred(t) })
}

// FireAtCommit fires every pending event (COMMIT, PREPARE TRANSACTION).
func (d *DeferredTriggers) FireAtCommit(c *Ctx) error {
	return d.fire(c, func(*catalog.Trigger) bool { return true })
}

// fire runs the pending events whose trigger due says, in queue order;
// events their functions queue are fired too.
func (d *DeferredTriggers) fire(c *Ctx, due func(*catalog.Trigger) bool) error {
	for {
		i := -1
		for k, e := range d.events {
			if due(e.ev.td.Trigger) {
				i = k
				break
			}
		}
		if i < 0 {
			return nil
		}
		if err := c.checkCancel(); err != nil {
			return err
		}
		e := d.events[i]
		d.events = append(d.events[:i], d.events[i+1:]...)
		if err := e.ev.fire(c); err != nil {
			return err
		}
	}
}

// Pending reports whether events wait.
func (d *DeferredTriggers) Pending() bool { return len(d.events) > 0 }
