package fphash

import (
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// The ZooKeeper side of fingerprints: the Machine hashes its state, and
// the simulator its clients' histories, with the same folds, so that a
// state and its mirror image (clients renamed) hash alike on both sides.

// Renaming maps the tokens that tell clients apart to those of other
// clients, for hashing a state as its mirror image. A client's name
// token is "c<digit>_" at the start of a string or after a character
// that is not a letter, digit or underscore (the workload's node names
// and data: "lock-c1_0.0-0000000003", "c1_0"); its sessions are ids.
// The renaming is only hashed: nothing is rewritten.
type Renaming struct {
	// Names[d] is the digit that client digit d ('1'..'9') becomes; a
	// zero entry keeps it.
	Names [10]byte
	// Session maps a session id to the id it hashes as; nil keeps it.
	Session func(id int64) int64
}

// maxRenamed is the longest string hashed renamed without a copy on the
// heap; longer ones are copied.
const maxRenamed = 128

// HashString folds s, which may name clients, into h as renamed by r.
func (r *Renaming) HashString(h *Hash, s string) {
	if r == nil || !r.renames(s) {
		h.String(s)
		return
	}
	var buf [maxRenamed]byte
	b := buf[:0]
	if len(s) > maxRenamed {
		b = make([]byte, 0, len(s))
	}
	b = append(b, s...)
	r.rewrite(b)
	h.Bytes(b)
}

// HashBytes folds data (nil kept apart from empty) into h as renamed by r.
func (r *Renaming) HashBytes(h *Hash, data []byte) {
	if data == nil || r == nil {
		h.Bytes(data)
		return
	}
	r.HashString(h, string(data))
}

// renames reports whether s holds a token r changes.
func (r *Renaming) renames(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		if r.tokenAt(s[i], s[i+1], s[i+2], i == 0 || !word(s[i-1])) {
			return true
		}
	}
	return false
}

func (r *Renaming) tokenAt(c, d, u byte, boundary bool) bool {
	return boundary && c == 'c' && d >= '1' && d <= '9' && u == '_' && r.Names[d-'0'] != 0
}

// rewrite renames the tokens of b in place (digits stay one byte).
func (r *Renaming) rewrite(b []byte) {
	for i := 0; i+2 < len(b); i++ {
		if r.tokenAt(b[i], b[i+1], b[i+2], i == 0 || !word(b[i-1])) {
			b[i+1] = r.Names[b[i+1]-'0']
			i += 2
		}
	}
}

func word(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// HashSession folds a session id into h as renamed by r.
func (r *Renaming) HashSession(h *Hash, id int64) {
	if r != nil && r.Session != nil {
		id = r.Session(id)
	}
	h.Int(id)
}

// HashChildren hashes a node's children, kept sorted by name: in order, or
// renamed as a set (renaming changes their sorted order, not the set).
func (r *Renaming) HashChildren(names []string) uint64 {
	var h Hash
	if r == nil {
		for _, c := range names {
			h.String(c)
		}
		return h.Sum()
	}
	for _, c := range names {
		var e Hash
		r.HashString(&e, c)
		h.Add(e.Sum())
	}
	return h.Sum()
}

// HashStat folds every field of a Stat into h, its ephemeral owner
// renamed by r.
func (r *Renaming) HashStat(h *Hash, st zkapi.Stat) {
	h.Int(st.Czxid)
	h.Int(st.Mzxid)
	h.Int(st.Pzxid)
	h.Int(st.Ctime)
	h.Int(st.Mtime)
	h.Int(int64(st.Version))
	h.Int(int64(st.Cversion))
	h.Int(int64(st.Aversion))
	r.HashSession(h, st.EphemeralOwner)
	h.Int(int64(st.DataLength))
	h.Int(int64(st.NumChildren))
}

// HashNotification folds a notification into h as renamed by r.
func (r *Renaming) HashNotification(h *Hash, n proto.Notification) {
	h.Int(n.Zxid)
	r.HashEvent(h, n.Event)
}

// HashEvent folds a watch event into h as renamed by r.
func (r *Renaming) HashEvent(h *Hash, ev zkapi.Event) {
	h.Int(int64(ev.Type))
	r.HashString(h, ev.Path)
	HashErr(h, ev.Err)
}

// HashErr folds in an error by its ZooKeeper code name: the errors the
// Machine returns wrap zkapi's sentinels, and the text beyond the code
// (paths, zxids) is already hashed from the request.
func HashErr(h *Hash, err error) {
	if err == nil {
		h.Uint(0)
		return
	}
	name := zkapi.Name(err)
	if name == "SystemError" { // not a ZooKeeper code: a context's error
		name = err.Error()
	}
	h.String(name)
}

// HashReply folds a reply into h as renamed by r: everything a client
// can read from it.
func (r *Renaming) HashReply(h *Hash, rep proto.Reply) {
	h.Int(rep.Zxid)
	HashErr(h, rep.Err)
	r.HashString(h, rep.Path)
	r.HashBytes(h, rep.Data)
	r.HashStat(h, rep.Stat)
	h.Int(int64(len(rep.Children)))
	for _, c := range rep.Children {
		r.HashString(h, c)
	}
	if rep.ACL != nil { // only getACL answers one
		HashACL(h, rep.ACL)
	}
	h.Int(int64(len(rep.Results)))
	for _, res := range rep.Results {
		r.HashString(h, res.Path)
		r.HashStat(h, res.Stat)
		HashErr(h, res.Err)
	}
}

// HashACL folds an ACL into h; the open ACL, every node's unless set
// otherwise, as one number.
func HashACL(h *Hash, acl []zkapi.ACL) {
	if len(acl) == 1 && acl[0] == zkapi.OpenACL[0] {
		h.Int(-1)
		return
	}
	h.Int(int64(len(acl)))
	for _, a := range acl {
		h.Int(int64(a.Perms))
		h.String(a.Scheme)
		h.String(a.ID)
	}
}
