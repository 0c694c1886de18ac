//go:build !zksimcheck

package sim

// checkEvents: without the tag zksimcheck, the event cache is trusted
// (see evcache.go).
const checkEvents = false
