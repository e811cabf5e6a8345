// Package tableams is the list of tidal's built-in table access methods.
// It is the one place that imports them all, so that nothing above the
// access layer (the engine, the executor, the catalog) imports an AM's
// package: the program's entry points (cmd/tidal, the embedded driver,
// testutil) hand Builtin's registry to engine.Open.
//
// Adding an access method is one Register line in Builtin.
package tableams

import (
	"github.com/tidal-db/tidal/internal/access/heap"
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/access/undo"
)

// Builtin returns a new registry holding every built-in table access
// method (one registry per engine: registries are never shared state).
func Builtin() *tableam.Registry {
	r := tableam.NewRegistry()
	r.Register(heap.AM{})
	r.Register(undo.NewAM())
	return r
}
