//go:build !race

package main

// raceEnabled: this test binary runs under the race detector.
const raceEnabled = false
