package main

import (
	"bufio"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServe_SignalsStopWithExit0: the serve docs promise that zksim serve
// runs until SIGINT or SIGTERM and then exits 0 (docs/serve.md, the
// usage's exit codes); the real binary is started, sent each, and must
// end with 0 within a few seconds.
func TestServe_SignalsStopWithExit0(t *testing.T) {
	bin := zksimBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "serve", "-control", "off", "-tick", "200")
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill() })
			// Serving once it has printed its address.
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil || !strings.Contains(line, "127.0.0.1:") {
				t.Fatalf("first line %q, %v", line, err)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("zksim serve after %v: %v, want exit 0", sig, err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("zksim serve still running 10s after %v", sig)
			}
		})
	}
}
