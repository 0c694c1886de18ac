package report

import (
	"regexp"
	"strconv"
	"strings"
)

// line is one trace line, split: "   52 t2   c3: holds /locks/l".
// A line that is not in that form keeps step -1 and is shown as it is.
type line struct {
	step   int
	tick   int
	text   string
	raw    string
	kind   markKind // what it shows on the timeline (classify)
	client int      // for whom: 0-based, -1 for none
}

// parseLine splits a trace line into its step, virtual time and text.
func parseLine(raw string) line {
	l := line{step: -1, tick: -1, text: raw, raw: raw, client: -1}
	f := strings.Fields(raw)
	if len(f) < 3 || !strings.HasPrefix(f[1], "t") {
		return l
	}
	// Leading digits only: a step may carry a suffix (39a, 39.1) if the
	// trace ever numbers the lines of one step apart.
	digits := f[0]
	if i := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		digits = digits[:i]
	}
	step, err1 := strconv.Atoi(digits)
	tick, err2 := strconv.Atoi(f[1][1:])
	if err1 != nil || err2 != nil {
		return l
	}
	rest := strings.TrimLeft(raw, " ")
	rest = strings.TrimLeft(rest[len(f[0]):], " ")
	rest = strings.TrimLeft(rest[len(f[1]):], " ")
	kind, client := classify(rest)
	return line{step: step, tick: tick, text: rest, raw: raw, kind: kind, client: client}
}

// Mark kinds: what a trace line shows on the timeline.
type markKind uint8

const (
	markNone     markKind = iota
	markActivity          // a send, a reply or notification received, a wakeup
	markCrash
	markLoseReply
	markLoseRequest
	markDisconnect
	markReconnect
	markExpired // the client's session expired
	markPause
	markAbandon
	markReorder
	markGaveUp // an acquisition ended without the lock
	markLog    // another line the client's program wrote
	markTick
	markServer // catch-up of a follower, the container reaper, a real member's fault
)

// markInfo is how a kind is drawn: a letter in a shape, its colour and
// its legend text.
var markInfo = map[markKind]struct{ glyph, colour, name, legend string }{
	markCrash:       {"✕", "#c62828", "crash", "the client stopped for good"},
	markLoseReply:   {"R", "#ef6c00", "lost reply", "applied, its reply lost"},
	markLoseRequest: {"Q", "#ef6c00", "lost request", "lost before the server"},
	markDisconnect:  {"D", "#6a1b9a", "disconnect", "the connection dropped"},
	markReconnect:   {"C", "#6a1b9a", "reconnect", "a new connection"},
	markExpired:     {"E", "#ad1457", "expiry", "the session expired"},
	markPause:       {"P", "#00838f", "pause", "the client stopped for a while"},
	markAbandon:     {"A", "#ad1457", "abandon", "the client left its session to expire"},
	markReorder:     {"O", "#c62828", "reorder", "illegal: a reply overtook notifications"},
	markGaveUp:      {"⊘", "#757575", "gave up", "an acquisition ended without the lock"},
	markServer:      {"S", "#546e7a", "server", "follower catch-up, container reaper; on real servers a member stopped, killed or back"},
}

// legendOrder lists the kinds in the legend.
var legendOrder = []markKind{markCrash, markLoseReply, markLoseRequest, markDisconnect, markReconnect,
	markExpired, markPause, markAbandon, markReorder, markGaveUp, markServer}

// clientName matches a client's name, c1, c2...
var clientName = regexp.MustCompile(`^c([0-9]+):?$`)

// classify says what a line's text shows and for which client (0-based;
// -1 for none).
func classify(text string) (markKind, int) {
	f := strings.Fields(text)
	if len(f) == 0 {
		return markNone, -1
	}
	if m := clientName.FindStringSubmatch(f[0]); m != nil && strings.HasSuffix(f[0], ":") {
		c, _ := strconv.Atoi(m[1])
		if strings.Contains(text, "acquire") && strings.Contains(text, "failed") {
			return markGaveUp, c - 1
		}
		return markLog, c - 1
	}
	switch f[0] {
	case "tick", "ticks":
		return markTick, -1
	case "catchup", "reap", "member": // member: a real run's member fault
		return markServer, -1
	}
	client := -1
	if len(f) > 1 {
		if m := clientName.FindStringSubmatch(f[1]); m != nil {
			c, _ := strconv.Atoi(m[1])
			client = c - 1
		}
	}
	if client < 0 {
		return markNone, -1
	}
	switch f[0] {
	case "crash":
		return markCrash, client
	case "lose-reply":
		return markLoseReply, client
	case "lose-request":
		return markLoseRequest, client
	case "disconnect":
		return markDisconnect, client
	case "reconnect":
		if strings.HasSuffix(text, "expired") {
			return markExpired, client
		}
		return markReconnect, client
	case "pause":
		return markPause, client
	case "abandon":
		return markAbandon, client
	case "reorder":
		return markReorder, client
	}
	return markActivity, client
}

// Patterns in violation details that name steps, holds, changes or
// nodes: "at step 52", "c3 (exclusive, 52-60)", "one change (zxid 19)",
// "/locks/l still has [lock-0000000002]".
var (
	stepRef   = regexp.MustCompile(`step ([0-9]+)`)
	holdRef   = regexp.MustCompile(`c([0-9]+) \((\w+), ([0-9]+)-([0-9]+|end)\)`)
	zxidRef   = regexp.MustCompile(`zxid ([0-9]+)`)
	orphanRef = regexp.MustCompile(`^(/\S*) still has \[([^]]*)\]`)
	// The clients a deadlock or a run out of steps left waiting.
	waitRef   = regexp.MustCompile(`while (.*?) waited|unfinished after [0-9]+ steps: (.*)$`)
	clientRef = regexp.MustCompile(`\bc([0-9]+)\b`)
)

// evidence is what shows the violations: steps, holds and the clients
// left waiting.
type evidence struct {
	steps   map[int]bool
	holds   map[holdKey]bool
	waiting map[int]bool // 0-based clients
}

// holdKey names a hold by its client and start.
type holdKey struct {
	client int
	start  int64
}

// derive finds the steps and holds that show the violations from their
// wording, for checkers that do not list them: the steps named, the holds'
// starts and ends, the change that caused a herd and the notifications
// that followed it, the creation of an orphaned node.
func derive(details []string, lines []line) evidence {
	steps, holds, waiting := map[int]bool{}, map[holdKey]bool{}, map[int]bool{}
	for _, d := range details {
		if m := waitRef.FindStringSubmatch(d); m != nil {
			for _, c := range clientRef.FindAllStringSubmatch(m[1]+" "+m[2], -1) {
				n, _ := strconv.Atoi(c[1])
				waiting[n-1] = true
			}
		}
		for _, m := range stepRef.FindAllStringSubmatch(d, -1) {
			n, _ := strconv.Atoi(m[1])
			steps[n] = true
		}
		for _, m := range holdRef.FindAllStringSubmatch(d, -1) {
			c, _ := strconv.Atoi(m[1])
			start, _ := strconv.Atoi(m[3])
			holds[holdKey{c - 1, int64(start)}] = true
			steps[start] = true
			if end, err := strconv.Atoi(m[4]); err == nil {
				steps[end] = true
			}
		}
		for _, m := range zxidRef.FindAllStringSubmatch(d, -1) {
			changeSteps(lines, m[1], steps)
		}
		if m := orphanRef.FindStringSubmatch(d); m != nil {
			for _, node := range strings.Fields(m[2]) {
				createSteps(lines, m[1]+"/"+node, steps)
			}
		}
	}
	return evidence{steps: steps, holds: holds, waiting: waiting}
}

// write parses a line that applied a write: its path, and whether it did.
func write(l line) (path, result string, ok bool) {
	f := strings.Fields(l.text)
	if len(f) < 4 || (f[0] != "send" && f[0] != "lose-reply") {
		return "", "", false
	}
	switch f[2] {
	case "create", "delete", "set", "multi":
	default:
		return "", "", false
	}
	_, result, _ = strings.Cut(l.text, " -> ")
	return f[3], result, true
}

// changeSteps marks the write that made change zxid and the watch
// notifications about its node or its parent that came before the next
// write.
func changeSteps(lines []line, zxid string, steps map[int]bool) {
	path := ""
	for _, l := range lines {
		p, result, ok := write(l)
		if path == "" {
			if ok && strings.HasPrefix(result, "z="+zxid+" OK") {
				path = p
				steps[l.step] = true
			}
			continue
		}
		if ok {
			return
		}
		f := strings.Fields(l.text)
		if len(f) == 4 && f[0] == "recv" && strings.HasPrefix(f[2], "Node") && (f[3] == path || f[3] == parent(path)) {
			steps[l.step] = true
		}
	}
}

// createSteps marks the create that made the node at path.
func createSteps(lines []line, path string, steps map[int]bool) {
	for _, l := range lines {
		if _, result, ok := write(l); ok && strings.Contains(result, "path="+path) {
			steps[l.step] = true
		}
	}
}

func parent(path string) string {
	if i := strings.LastIndexByte(path, '/'); i > 0 {
		return path[:i]
	}
	return "/"
}
