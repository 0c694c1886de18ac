package simcli

import (
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
