//go:build !race

package tidstore

const raceEnabled = false
