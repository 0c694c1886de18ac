package simcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/zksim/zksim/internal/nemesis"
	"github.com/zksim/zksim/zkapi"
)

// realSessionTimeout is what a real run's clients ask for: short, so a
// pause expires a session within seconds.
const realSessionTimeout = 4 * time.Second

// requestsPerAcquisition is about how many requests one acquisition of a
// queue lock, its fenced write and its release make (create, children,
// exists or getData, the write's multi, delete: 5 to 8 on the fake). A
// real run draws its faults' moments among the first
// acquisitions x this requests of each client, so that they fall inside
// the run.
const requestsPerAcquisition = 6

// parseRealFaults reads -faults on real servers: none, or the
// simulator's spelling for the kinds a real run can inject (package
// nemesis says which and why the others cannot be).
func parseRealFaults(spec string) (nemesis.Faults, error) {
	if spec == "" {
		return nemesis.Faults{}, errEmptyFaults
	}
	return nemesis.Parse(spec)
}

// errCrashed ends the context of a client the nemesis crashed.
var errCrashed = errors.New("crashed by the nemesis")

// crashClose closes the Conn of a crashed client, so that what its
// program was doing (a delete retried until the link returns) ends; the
// closeSession cannot pass the crashed proxy, so the session lingers
// until the server expires it, as a crashed process's would.
func crashClose(ctx context.Context, c zkapi.Conn) {
	if errors.Is(context.Cause(ctx), errCrashed) {
		c.Close()
	}
}

// startNemesis draws the run's fault schedule from its seed and starts
// a proxy for each client, through which it injects it; a crash stops
// the client's program through stops.
func (r *realRun) startNemesis(stops []context.CancelCauseFunc) (*nemesis.Nemesis, error) {
	wl, members := r.rc.workload, 0
	if r.members != nil {
		members = r.members.Len()
	}
	sched := nemesis.Draw(r.rc.real, nemesis.Plan{Seed: r.rc.plan.seed, Clients: wl.Clients, Members: members,
		Requests: int64(wl.Acquisitions * requestsPerAcquisition)})
	r.schedule, r.nemesisAt = sched, r.history.now()
	return nemesis.New(nemesis.Config{Servers: r.rc.servers, Clients: wl.Clients, Schedule: sched, Members: r.members,
		SessionTimeout: realSessionTimeout, OnCrash: func(i int) { stops[i](errCrashed) }})
}

// reportFaults lists what the nemesis injected and when, and what it
// could not inject in time.
func (r *realRun) reportFaults(w io.Writer) {
	if r.nem == nil {
		return
	}
	ins, missed := r.injections(), r.nem.Missed() // on the history's clock, as the JSON and HTML reports
	if len(ins) == 0 && len(missed) == 0 {
		return
	}
	var reqs []string
	for i := range r.rc.workload.Clients {
		reqs = append(reqs, strconv.FormatInt(r.nem.Requests(i), 10))
	}
	fmt.Fprintf(w, "  %-22s %s\n", "requests by client", strings.Join(reqs, ", "))
	fmt.Fprintf(w, "  %-22s %d (seed %d)\n", "faults injected", len(ins), r.rc.plan.seed)
	for _, in := range ins {
		fmt.Fprintf(w, "    %v\n", in)
	}
	for _, f := range missed {
		line := fmt.Sprintf("not injected: %v", f)
		if f.Client >= 0 {
			line += fmt.Sprintf(" (it made %d requests)", r.nem.Requests(f.Client))
		}
		fmt.Fprintf(w, "    %s\n", line)
	}
}
