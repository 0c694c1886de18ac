package main

import (
	"io"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/simhook"
)

// faultRow is one row of the fault vocabulary table (docs/serve.md).
type faultRow struct {
	name, run, serve string
	old              []string // old spellings of the spec (not Go names)
}

// docFaultTable reads the table under docs/serve.md's "## One fault
// vocabulary".
func docFaultTable(t *testing.T) []faultRow {
	t.Helper()
	section := docSection(t, "docs/serve.md", "## One fault vocabulary")
	var rows []faultRow
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) != 8 {
			t.Fatalf("table row %q has %d cells, want 6", line, len(cells)-2)
		}
		r := faultRow{name: strings.Trim(cells[1], " `"), run: strings.TrimSpace(cells[3]), serve: strings.TrimSpace(cells[4])}
		for _, w := range strings.Split(cells[6], ",") {
			if w = strings.Trim(w, " `"); w != "" && !strings.Contains(w, ".") {
				r.old = append(r.old, w)
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// TestDocs_FaultVocabulary: docs/serve.md's table names every fault of
// zksim run (the sim package's fault kinds) and of serve's spec, once,
// and says truly which of the two accepts it, old spellings included.
func TestDocs_FaultVocabulary(t *testing.T) {
	rows := docFaultTable(t)
	var names []string
	for _, r := range rows {
		names = append(names, r.name)
	}
	want := serveKinds()
	for _, k := range simhook.FaultKinds() {
		if !slices.Contains(want, k.Name) {
			want = append(want, k.Name)
		}
	}
	sort.Strings(names)
	sort.Strings(want)
	if !slices.Equal(names, want) {
		t.Errorf("docs/serve.md's table names %q, want run's and serve's faults %q", names, want)
	}
	dir := t.TempDir()
	srv, err := netserver.New(netserver.Config{Machine: machine.Config{TickMillis: 100}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, r := range rows {
		for _, spelling := range append([]string{r.name}, r.old...) {
			var stderr strings.Builder
			code := run([]string{"run", "-faults", spelling, "-schedules", "1", "-out", dir}, io.Discard, &stderr)
			runs := !strings.Contains(stderr.String(), "unknown fault")
			if runs != (r.run == "yes") || runs && code == 2 {
				t.Errorf("docs/serve.md says run accepts %s: %q; run -faults %s: exit %d %s", spelling, r.run, spelling, code, stderr.String())
			}
			err := srv.ApplyFaults(spelling)
			serves := err == nil || !strings.Contains(err.Error(), "unknown kind")
			if serves != (r.serve == "yes") {
				t.Errorf("docs/serve.md says serve accepts %s: %q; ApplyFaults: %v", spelling, r.serve, err)
			}
		}
	}
}

// serveKinds are the kinds serve's fault spec help lists.
func serveKinds() []string {
	var kinds []string
	for _, line := range strings.Split(netserver.FaultSpecHelp, "\n") {
		if rest, ok := strings.CutPrefix(line, "  "); ok {
			kinds = append(kinds, rest[:strings.IndexAny(rest, "[:")])
		}
	}
	return kinds
}
