package simwire

// guids makes the GUIDs of protected creates deterministic on the wire:
// the real client names a protected node "_c_<guid>-<name>", its guid 16
// random bytes in 32 hex digits; the simulator sees instead one numbered
// by the client's bridge in the order the client first sent each.
// Both have 32 digits, so a frame is rewritten in place and keeps its
// length.
type guids struct {
	client int               // the simulated client's index, in every guid made
	toDet  map[string]string // the client's guid -> the simulator's
	toReal map[string]string
}

const (
	guidMark = "_c_"
	guidLen  = 32
)

// toSim rewrites the client's guids in a frame to the simulator.
func (g *guids) toSim(frame []byte) {
	g.rewrite(frame, func(real string) string {
		if d, ok := g.toDet[real]; ok {
			return d
		}
		if isDet(real) {
			return real // another client's, as the client was told it
		}
		if g.toDet == nil {
			g.toDet, g.toReal = map[string]string{}, map[string]string{}
		}
		d := guidOf(g.client, len(g.toDet)+1)
		g.toDet[real], g.toReal[d] = d, real
		return d
	})
}

// toClient rewrites the simulator's guids of the client's own back in a
// frame to the client; other clients' are left as they are.
func (g *guids) toClient(frame []byte) {
	if len(g.toReal) == 0 {
		return
	}
	g.rewrite(frame, func(d string) string {
		if r, ok := g.toReal[d]; ok {
			return r
		}
		return d
	})
}

// isDet reports whether a guid is one of the simulator's: its first 12
// digits are zeros (a random guid's are, once in 2^48).
func isDet(g string) bool { return g[:12] == "000000000000" }

// guidOf is the n-th guid of client i (from 0): "c<i+1>" and n in hex,
// padded with zeros to 32 digits.
func guidOf(i, n int) string {
	const hex = "0123456789abcdef"
	b := []byte("00000000000000000000000000000000")
	put := func(end, v int) {
		for k := end; v > 0 && k >= 0; k-- {
			b[k] = hex[v%16]
			v /= 16
		}
	}
	put(15, i+1)
	put(31, n)
	return string(b)
}

// rewrite replaces each guid in frame by swap's answer, in place.
func (g *guids) rewrite(frame []byte, swap func(string) string) {
	for i := 0; i+len(guidMark)+guidLen < len(frame); i++ {
		if string(frame[i:i+len(guidMark)]) != guidMark {
			continue
		}
		start := i + len(guidMark)
		end := start + guidLen
		if frame[end] != '-' || !isHex(frame[start:end]) {
			continue
		}
		copy(frame[start:end], swap(string(frame[start:end])))
		i = end
	}
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
