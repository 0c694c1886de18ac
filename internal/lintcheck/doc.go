// Package lintcheck holds tests of conventions that span the whole module
// and that neither go vet nor staticcheck knows: golden files are
// re-recorded one way only, with a test binary's -update flag, and commit
// messages keep a short subject (scripts/commit-msg); docs/testing.md has
// both. It has no code outside its tests.
package lintcheck
