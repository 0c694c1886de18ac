// Package lintcheck holds tests of conventions that span the whole module
// and that neither go vet nor staticcheck knows: golden files are
// re-recorded one way only, with a test binary's -update flag, commit
// messages keep a short subject (scripts/commit-msg), and docs/design.md's
// package table says truly what each package imports (go list);
// docs/testing.md has the first two. It has no code outside its tests.
package lintcheck
