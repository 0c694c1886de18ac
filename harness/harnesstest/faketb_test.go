package harnesstest_test

import (
	"fmt"
	"os"
	"runtime"
	"testing"
)

// fakeTB records what a test helper reports instead of failing the test
// that runs it. Its Fatal ends the goroutine run started; the methods it
// does not define panic (the embedded TB is nil).
type fakeTB struct {
	testing.TB
	fatal, errors string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Errorf(format string, args ...any) { f.errors += fmt.Sprintf(format, args...) + "\n" }

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fakeTB) Fatal(args ...any) {
	f.fatal = fmt.Sprint(args...)
	runtime.Goexit()
}

// run runs fn, which may call f.Fatal, in its own goroutine.
func (f *fakeTB) run(fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	<-done
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
