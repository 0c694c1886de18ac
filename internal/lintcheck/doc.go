// Package lintcheck holds tests of conventions that span the whole module
// and that neither go vet nor staticcheck knows: today, that golden files
// are re-recorded one way only, with a test binary's -update flag
// (docs/testing.md). It has no code outside its tests.
package lintcheck
