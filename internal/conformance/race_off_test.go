//go:build !race

package conformance_test

// raceEnabled: this test binary runs under the race detector.
const raceEnabled = false
