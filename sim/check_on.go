//go:build zksimcheck

package sim

// checkEvents: with the tag zksimcheck, every refresh of the event cache
// checks every client's entry against the client (see evcache.go).
const checkEvents = true
