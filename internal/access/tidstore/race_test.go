//go:build race

package tidstore

// raceEnabled is true when the tests run under the race detector; the
// single-goroutine 20 M-row replays are skipped then (they exercise no
// concurrency and the detector makes them slow).
const raceEnabled = true
