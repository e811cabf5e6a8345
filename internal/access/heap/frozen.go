package heap

import (
	"encoding/binary"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
)

// FormFrozen builds a tuple that every snapshot sees without consulting the
// commit log (xmin FrozenTransactionId, hinted frozen), placed at tid: the
// form of a sequence's single tuple, which is overwritten in place and
// never versioned.
func FormFrozen(ts []datum.Type, vals []datum.Datum, tid page.ItemPointer) Tuple {
	return freeze(Form(ts, vals), tid)
}

// freeze makes a just-formed tuple frozen, placed at tid.
func freeze(t Tuple, tid page.ItemPointer) Tuple {
	setXmin(t, xact.FrozenXid, 0)
	binary.LittleEndian.PutUint16(t[offInfomask:], t.Infomask()|XminFrozen)
	page.PutItemPointer(t[offCtid:], tid)
	return t
}
