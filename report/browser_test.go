package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// standardFaults is zksim run's default fault mix.
var standardFaults = sim.Faults{Percent: 10, LoseRequest: 2, LoseReply: 2, Disconnect: 2, Crash: 1, Pause: 1, Reap: 1, Abandon: 1}

// fiveClientFailure saves the report of a failure of the standard
// workload (5 clients x 3 acquisitions) under the default faults: the
// widest report zksim run writes by default.
func fiveClientFailure(t testing.TB, dir string) (string, harness.Counterexample) {
	t.Helper()
	ex, _ := zoo.Lookup(zoo.NameDeleteFirstChild)
	w := harness.Lock(ex.Recipe, harness.Workload{Clients: 5, Acquisitions: 3, TimeoutTicks: 12, TimeoutPercent: 50})
	for seed := uint64(1); seed <= 500; seed++ {
		cfg := sim.Config{Faults: standardFaults, Server: fakezk.Config{Seed: seed, Followers: int(seed % 2)}}
		var recorded []int
		rec := sim.Record(sim.NewSeeded(seed), &recorded)
		rep, err := harness.Run(cfg, rec, w)
		if err != nil {
			t.Fatal(err)
		}
		if !hasClass(rep, check.MutualExclusion) {
			continue
		}
		_, html, err := harness.SaveFailure(dir, "five", harness.Counterexample{Subject: w, Config: cfg, Decisions: recorded, Report: rep}, nil)
		if err != nil || html == "" {
			t.Fatalf("no report saved: %v", err)
		}
		return html, harness.Counterexample{Subject: w, Config: cfg, Decisions: recorded, Report: rep}
	}
	t.Fatal("no 5-client mutual-exclusion failure in 500 seeds")
	return "", harness.Counterexample{}
}

func hasClass(rep *harness.Report, class check.Class) bool {
	for _, c := range rep.Classes() {
		if c == class {
			return true
		}
	}
	return false
}

// chromium runs headless Chromium on a 1400x900 window with args, and
// returns its standard output.
func chromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a hung browser, not a speed goal
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + t.TempDir(),
		"--window-size=1400,900"}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return out
}

// layoutProbe, added to a copy of the report, writes what the browser laid
// out into the DOM that --dump-dom prints: whether the verdict is on the
// screen and not covered, hidden or clipped, whether the page fits the
// window's width, and whether the timeline and the trace are both in view,
// side by side without overlapping.
const layoutProbe = `<script>
(function(){
var h=document.querySelector("#verdict h1"),r=h.getBoundingClientRect(),s=getComputedStyle(h);
var top=document.elementFromPoint(r.left+4,r.top+r.height/2);
var svg=document.getElementById("timeline").getBoundingClientRect();
var tr=document.getElementById("trace").getBoundingClientRect();
var res={verdict:h.innerText,onScreen:r.width>0&&r.height>0&&r.top>=0&&r.bottom<=innerHeight&&r.right<=innerWidth,
 shown:s.visibility==="visible"&&s.display!=="none"&&Number(s.opacity)>0&&s.color!==getComputedStyle(h.parentNode).backgroundColor,
 uncovered:!!top&&(top===h||h.contains(top)),
 unclipped:h.scrollWidth<=h.clientWidth+1,
 fits:document.documentElement.scrollWidth<=innerWidth,
 timeline:svg.width>400&&svg.right<=tr.left&&svg.top<innerHeight,
 trace:tr.width>300&&tr.right<=innerWidth&&tr.top<innerHeight};
document.body.setAttribute("data-probe",JSON.stringify(res));
})();
</script></body>`

type probe struct {
	Verdict                                                      string
	OnScreen, Shown, Uncovered, Unclipped, Fits, Timeline, Trace bool
}

// TestBrowser_FiveClients opens the report of a 5-client failure in
// headless Chromium at 1400x900: the verdict must be on the screen,
// visible and uncovered, the page must fit the width, and a screenshot
// must show the verdict's red banner at the top with text in it.
func TestBrowser_FiveClients(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed (Debian: apt-get install chromium): the report is not checked in a browser")
	}
	dir := t.TempDir()
	html, _ := fiveClientFailure(t, dir)
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	probed := filepath.Join(dir, "probed.html")
	if err := os.WriteFile(probed, bytes.Replace(page, []byte("</body>"), []byte(layoutProbe), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := chromium(t, bin, "--dump-dom", "file://"+probed)
	m := regexp.MustCompile(`data-probe="([^"]*)"`).FindSubmatch(dom)
	if m == nil {
		t.Fatalf("the probe did not run; DOM:\n%.2000s", dom)
	}
	var p probe
	if err := json.Unmarshal([]byte(strings.ReplaceAll(string(m[1]), "&quot;", `"`)), &p); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Verdict, string(check.MutualExclusion)) {
		t.Errorf("verdict shown %q, want it to start with %s", p.Verdict, check.MutualExclusion)
	}
	if !p.OnScreen || !p.Shown || !p.Uncovered || !p.Unclipped || !p.Fits || !p.Timeline || !p.Trace {
		t.Errorf("layout at 1400x900: %+v", p)
	}

	shot := filepath.Join(dir, "shot.png")
	chromium(t, bin, "--hide-scrollbars", "--screenshot="+shot, "file://"+html)
	checkBanner(t, shot)
}

// checkBanner requires the screenshot's top rows to be mostly the
// verdict banner's red, with light pixels in it: the verdict's text.
func checkBanner(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	if b.Dx() != 1400 {
		t.Errorf("screenshot %dx%d, want 1400 wide", b.Dx(), b.Dy())
	}
	red, light, total := 0, 0, 0
	for y := b.Min.Y + 4; y < b.Min.Y+40; y++ {
		for x := b.Min.X; x < b.Min.X+600; x++ {
			total++
			switch r, g, bl := rgb(img, x, y); {
			case near(r, 0xb3) && near(g, 0x26) && near(bl, 0x1e):
				red++
			case r > 0xe0 && g > 0xe0 && bl > 0xe0:
				light++
			}
		}
	}
	if red < total/2 || light < 100 {
		t.Errorf("top of the screenshot: %d of %d pixels the banner's red, %d light (text): no verdict banner with text", red, total, light)
	}
}

func rgb(img image.Image, x, y int) (r, g, b uint32) {
	r, g, b, _ = img.At(x, y).RGBA()
	return r >> 8, g >> 8, b >> 8
}

func near(v, want uint32) bool { return v+6 >= want && v <= want+6 }
