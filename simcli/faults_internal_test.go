package simcli

import (
	"strings"
	"testing"

	"github.com/zksim/zksim/sim"
)

func TestParseFaults_Abandon(t *testing.T) {
	for spec, want := range map[string]sim.Faults{
		"abandon":                           {Percent: 10, Abandon: 1},
		"abandon=3,lose-reply=2,percent=20": {Percent: 20, LoseReply: 2, Abandon: 3},
	} {
		got, err := parseFaults(spec)
		if err != nil || got != want {
			t.Errorf("parseFaults(%q) = %+v, %v; want %+v", spec, got, err, want)
		}
	}
}

// TestParseFaults_OldSpellings: zksim serve's old names for the lost
// reply and request count as the same kinds here: one kind named by both
// spellings is named twice, and refused.
func TestParseFaults_OldSpellings(t *testing.T) {
	got, err := parseFaults("drop-reply=2,drop-request=3")
	if want := (sim.Faults{Percent: 10, LoseReply: 2, LoseRequest: 3}); err != nil || got != want {
		t.Errorf("parseFaults = %+v, %v; want %+v", got, err, want)
	}
	_, err = parseFaults("drop-request,lose-request=3")
	if err == nil || !strings.Contains(err.Error(), `fault "lose-request" given twice (as "drop-request" and "lose-request")`) {
		t.Errorf("both spellings of one kind: %v", err)
	}
}
