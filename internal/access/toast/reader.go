package toast

import (
	"context"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/datum/varatt"
	"github.com/tidal-db/tidal/internal/stats"
)

// Reader fetches external values of one table for the tuple decoder
// (datum.Detoaster): chunks are read through the TOAST index, then the
// value is decompressed if it was stored compressed.
type Reader struct {
	Rel *Relation
	Ctx context.Context // may be nil: not interruptible
	U   *stats.Usage    // may be nil: not counted
}

var _ datum.Detoaster = Reader{}

// Detoast returns value p's payload.
func (r Reader) Detoast(p varatt.External) ([]byte, error) {
	stored, err := r.Rel.Fetch(r.Ctx, r.U, p)
	if err != nil {
		return nil, err
	}
	if !p.Compressed() {
		return stored, nil
	}
	return datum.Decompress(stored)
}
