//go:build race

package btree

// raceEnabled: the race detector slows the big sizing tests too much.
const raceEnabled = true
