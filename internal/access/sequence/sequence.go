// Package sequence stores sequence generators the way PostgreSQL does: a
// relation of kind 'S' whose file is one heap-format page holding one
// frozen tuple (last_value int8, log_cnt int8, is_called bool), so a plain
// heap scan reads it ("SELECT * FROM seq").
//
// Changes are not transactional: the tuple is overwritten in place under
// the page's exclusive content lock, and nextval is never rolled back.
//
// Durability follows PostgreSQL's SEQ_LOG_VALS scheme. A WAL record logs a
// state LogVals values ahead of what has been handed out; the page then
// holds the real state with log_cnt counting how many values may still be
// handed out without a new record. Every record reformats the whole page
// (an init delta, redone unconditionally), so after a crash the page holds
// the logged-ahead value and no value is handed out twice. The first
// nextval after a checkpoint's redo point always logs, because the
// checkpoint may have written the page with a log_cnt that redo from the
// new redo point would no longer cover. A value is returned only once the
// record covering it is flushed.
package sequence

import (
	"encoding/binary"
	"fmt"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
)

// columnFormat is the sequence row's format in am.
func columnFormat(am tableam.FrozenFormer) tableam.Format {
	return am.(tableam.AM).NewFormat(tableam.FormatSpec{Layout: datum.NewDeformer(ColumnTypes)})
}

// LogVals is how many values a WAL record logs ahead (SEQ_LOG_VALS).
const LogVals = 32

// Magic is the sequence page's special-space marker (SEQ_MAGIC).
const Magic = 0x1717

// InfoLog is the one record kind: "the sequence page now holds this".
const InfoLog uint8 = 0x00

// Tuple layout: the heap tuple header (23 bytes, MAXALIGNed to 24: no
// nulls), then the three columns; TestTupleLayout holds it to the heap's.
const (
	offData      = 24
	offLastValue = offData
	offLogCnt    = offData + 8
	offIsCalled  = offData + 16
)

// ColumnTypes are the sequence relation's columns, in order.
var ColumnTypes = []datum.Type{datum.Int8, datum.Int8, datum.Boolean}

// ColumnNames are the sequence relation's column names.
var ColumnNames = []string{"last_value", "log_cnt", "is_called"}

func init() {
	wal.Register(wal.RmSeq, wal.Rmgr{Name: "Sequence", Desc: func(uint8) string { return "LOG" }})
}

// State is the sequence tuple.
type State struct {
	LastValue int64
	LogCnt    int64
	IsCalled  bool
}

// Options are a sequence's parameters (a pg_sequence row, less the type).
type Options struct {
	Start, Increment, Min, Max, Cache int64
	Cycle                             bool
}

// Rel names a sequence's storage and, for error messages, its name.
type Rel struct {
	Env *tableam.Env
	// Heap forms the page's frozen tuple (the heap AM: sequence pages are
	// heap pages, as in PostgreSQL).
	Heap tableam.FrozenFormer
	File smgr.RelFileNumber
	Name string
}

func (r Rel) tag() buffer.Tag { return buffer.Tag{Rel: r.File, Fork: smgr.MainFork, Block: 0} }

// formatPage writes a sequence page holding st into p, recording it in d.
func (r Rel) formatPage(p page.Page, st State, d *page.Delta) {
	page.Init(p, 4, d)
	binary.LittleEndian.PutUint32(p[p.Special():], Magic)
	d.Mark(p.Special(), p.Special()+4)
	vals := []datum.Datum{datum.Int(st.LastValue), datum.Int(st.LogCnt), datum.Bool(st.IsCalled)}
	t := r.Heap.FormFrozen(columnFormat(r.Heap), vals, page.ItemPointer{Block: 0, Offset: 1})
	p.AddItem(t, page.InvalidOffset, false, false, 1, d)
}

func readState(p page.Page) (State, error) {
	if p.IsNew() || binary.LittleEndian.Uint32(p.SpecialSpace()) != Magic {
		return State{}, pgerr.Errorf(pgerr.DataCorrupted, "bad magic number in sequence page")
	}
	it := p.Item(1)
	t := p[it.Off : it.Off+it.Len]
	return State{
		LastValue: int64(binary.LittleEndian.Uint64(t[offLastValue:])),
		LogCnt:    int64(binary.LittleEndian.Uint64(t[offLogCnt:])),
		IsCalled:  t[offIsCalled] != 0,
	}, nil
}

// writeState overwrites the tuple of a formatted page (not logged).
func writeState(p page.Page, st State) {
	it := p.Item(1)
	t := p[it.Off : it.Off+it.Len]
	binary.LittleEndian.PutUint64(t[offLastValue:], uint64(st.LastValue))
	binary.LittleEndian.PutUint64(t[offLogCnt:], uint64(st.LogCnt))
	t[offIsCalled] = 0
	if st.IsCalled {
		t[offIsCalled] = 1
	}
}

// logPage formats the page with logged (the state redo must restore),
// inserts the record and stamps the page. The page is exclusively locked.
func (r Rel) logPage(u *stats.Usage, b buffer.Buffer, logged State, xid uint32) (page.LSN, error) {
	pool := r.Env.Pool
	p := pool.Page(b)
	var d page.Delta
	r.formatPage(p, logged, &d)
	rec := wal.NewRecord(wal.RmSeq, InfoLog, xid)
	rec.AddBlock(r.tag(), p, wal.BlockStandard, &d)
	pool.MarkDirty(u, b)
	lsn, err := r.Env.WAL.Insert(u, rec)
	if err != nil {
		return 0, err
	}
	p.SetLSN(lsn)
	return lsn, nil
}

// Init gives a new sequence (its file just created, empty) its page.
func Init(u *stats.Usage, r Rel, st State, xid uint32) error {
	pool := r.Env.Pool
	b, blk, err := pool.Extend(u, r.File, smgr.MainFork, nil)
	if err != nil {
		return fmt.Errorf("sequence %q: %w", r.Name, err)
	}
	defer pool.UnlockRelease(b, buffer.Exclusive)
	if blk != 0 {
		return fmt.Errorf("sequence %q: file already has %d blocks", r.Name, blk)
	}
	lsn, err := r.logPage(u, b, st, xid)
	if err != nil {
		return err
	}
	return r.Env.WAL.Flush(lsn)
}

// Read returns the sequence tuple as it is now.
func Read(u *stats.Usage, r Rel) (State, error) {
	pool := r.Env.Pool
	b, err := pool.Read(u, r.tag(), nil)
	if err != nil {
		return State{}, err
	}
	defer pool.UnlockRelease(b, buffer.Share)
	pool.Lock(b, buffer.Share)
	return readState(pool.Page(b))
}

// Set overwrites the sequence tuple (setval, ALTER SEQUENCE RESTART) and
// logs the new state before returning.
func Set(u *stats.Usage, r Rel, st State, xid uint32) error {
	pool := r.Env.Pool
	b, err := pool.Read(u, r.tag(), nil)
	if err != nil {
		return err
	}
	pool.Lock(b, buffer.Exclusive)
	if _, err := readState(pool.Page(b)); err != nil {
		pool.UnlockRelease(b, buffer.Exclusive)
		return err
	}
	st.LogCnt = 0
	lsn, err := r.logPage(u, b, st, xid)
	pool.UnlockRelease(b, buffer.Exclusive)
	if err != nil {
		return err
	}
	return r.Env.WAL.Flush(lsn)
}

// Fetch hands out up to opts.Cache values (at least one) from the
// sequence: it returns the first and the last, both already consumed in
// the shared state. The values between them, stepping by opts.Increment,
// belong to the caller (a session's cache).
func Fetch(u *stats.Usage, r Rel, opts Options, xid uint32) (first, last int64, err error) {
	pool := r.Env.Pool
	b, err := pool.Read(u, r.tag(), nil)
	if err != nil {
		return 0, 0, err
	}
	pool.Lock(b, buffer.Exclusive)
	p := pool.Page(b)
	st, err := readState(p)
	if err != nil {
		pool.UnlockRelease(b, buffer.Exclusive)
		return 0, 0, err
	}
	cache := opts.Cache
	if cache < 1 {
		cache = 1
	}
	cur := st.LastValue
	first = cur
	fetch, logLeft := cache, st.LogCnt
	got := int64(0)
	if !st.IsCalled {
		// last_value itself has not been handed out yet.
		got, fetch = 1, fetch-1
	}
	logit := false
	if logLeft < fetch || !st.IsCalled || p.LSN() <= r.Env.WAL.RedoPtr() {
		fetch += LogVals
		logLeft = fetch
		logit = true
	}
	next := cur
	for fetch > 0 {
		n, wrapped := step(next, opts)
		if wrapped {
			// A batch never wraps: a session steps through its cached
			// values by adding the increment.
			if got > 0 {
				break // the values fetched so far will do
			}
			if !opts.Cycle {
				pool.UnlockRelease(b, buffer.Exclusive)
				if opts.Increment > 0 {
					return 0, 0, pgerr.Errorf(SequenceGeneratorLimitExceeded, "nextval: reached maximum value of sequence \"%s\" (%d)", r.Name, opts.Max)
				}
				return 0, 0, pgerr.Errorf(SequenceGeneratorLimitExceeded, "nextval: reached minimum value of sequence \"%s\" (%d)", r.Name, opts.Min)
			}
		}
		next = n
		fetch--
		if got < cache {
			logLeft--
			got++
			cur = next
			if got == 1 {
				first = next
			}
		}
	}
	logLeft -= fetch
	if logit {
		if _, err = r.logPage(u, b, State{LastValue: next, LogCnt: 0, IsCalled: true}, xid); err != nil {
			pool.UnlockRelease(b, buffer.Exclusive)
			return 0, 0, err
		}
	} else {
		pool.MarkDirty(u, b)
	}
	// The record that covers the values handed out: this call's, or the
	// one another session logged and may not have flushed yet.
	covering := p.LSN()
	// The page keeps the real position; the record covers up to next,
	// and log_cnt says how far that is.
	writeState(p, State{LastValue: cur, LogCnt: logLeft, IsCalled: true})
	pool.UnlockRelease(b, buffer.Exclusive)
	// A value must not reach the client before that record is durable
	// (PostgreSQL leaves this to the commit of the transaction that
	// logged, so another session's value can get out first).
	if err := r.Env.WAL.Flush(covering); err != nil {
		return 0, 0, err
	}
	return first, cur, nil
}

// step is the value after v, and whether getting there passed a bound: a
// cycling sequence wraps to the other bound; for a non-cycling one the
// value is meaningless.
func step(v int64, o Options) (int64, bool) {
	inc := o.Increment
	if inc > 0 {
		// Careful not to overflow: v + inc > Max, rearranged.
		if (o.Max >= 0 && v > o.Max-inc) || (o.Max < 0 && v+inc > o.Max) {
			return o.Min, true
		}
		return v + inc, false
	}
	if (o.Min < 0 && v < o.Min-inc) || (o.Min >= 0 && v+inc < o.Min) {
		return o.Max, true
	}
	return v + inc, false
}

// SequenceGeneratorLimitExceeded is SQLSTATE 2200H.
const SequenceGeneratorLimitExceeded = "2200H"
