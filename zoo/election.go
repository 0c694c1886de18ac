package zoo

import (
	"context"
	"errors"
	"strconv"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// Election exhibits: broken leader elections, as recipe.Locks with Terms
// set, so that the harness checks their terms (check.SharedTerm, check.TermOrder) beside
// exclusion and herds. Each is the good election of package election with
// one part swapped (electVariant): its candidates are the queue's members
// "cand-<id>-<seq>", the first one leads, every other one watches the
// node just before its own, the term is the leader's node's czxid, and
// the leader's writes are fenced by a check on that node.

// electHerd is the election in which every follower watches the leader's
// node: a candidate that does not lead sets a data watch on the lowest
// node, not on its predecessor, and lists again when it fires. Everything
// else is the good election: its Rule is swapped.
//
// Origin: the first design the ZooKeeper recipes page's "Leader Election"
// section sets aside (watching "the znode with the smallest sequence
// number" causes a herd effect), and the naive election of blog posts,
// each follower an exists watch on the leader.
//
// Bug (docs/zk-semantics.md bug scenario 7): a leader change, a
// resignation or an expiry, wakes every follower, and all of them list
// the directory again, though only the next one can lead. Violation: herd.
func electHerd() recipe.Lock { return electRecipe(NameElectHerd) }

// electCached is the election whose term comes from a counter node
// beside the directory ("<dir>-term") that a candidate reads when it
// joins: once it leads, it takes the value it read plus one as its term
// and writes that back, where the good election takes its node's czxid.
// Everything else is the good election: its Term is swapped.
//
// Origin: elections that keep an epoch counter in a znode of its own and
// save a round trip on the way to leading: a candidate learns the epoch
// when it registers, caches it, and increments its cached copy when it
// wins (a controller epoch read at startup; homegrown recipes).
//
// Bug (docs/zk-semantics.md bug scenario 3): candidates that joined under
// one leader all cached the same epoch, so the next two leaders take one
// term (and a candidate that joined earlier still can take a lower one
// after them). The fence, a check on the leader's node, still refuses a
// replaced leader's writes, but the resource cannot tell the two leaders'
// writes apart. Violation: shared-term.
func electCached() recipe.Lock { return electRecipe(NameElectCached) }

// electUnfenced is the election whose leader writes without a fence: its
// Held has the term but no Fenced, so the leader's writes are plain sets.
// Everything else is the good election: its Write is swapped.
//
// Origin: kazoo's Election.run and Curator's LeaderSelector, which run the
// leader's function until it returns and offer no fenced write, with a
// leader not interrupted when it loses (CURATOR-54, CURATOR-220).
//
// Bug (docs/zk-semantics.md bug scenario 3): a leader paused past its
// session's timeout is replaced; when it resumes it does not know, and its
// write, with its old term, lands after the new leader's. Violation:
// fencing.
func electUnfenced() recipe.Lock { return electRecipe(NameElectUnfenced) }

// candKind is the node kind of the election's candidates, as package
// election names them.
const candKind = "cand"

// electVariant is an election exhibit: the good election with the one
// part named by part swapped.
type electVariant struct {
	name string
	part string // "Rule", "Term" or "Write": the part that carries the defect
	// rule says who leads and whom a follower watches; nil: the good
	// election's, queue.Predecessor.
	rule queue.Rule
	// term runs before the candidate joins and returns what makes its
	// term once it leads; nil: czxidTerm.
	term func(ctx context.Context, q queue.Queue) (termFunc, error)
	// unfenced: the leader's Held has no Fenced, so its writes are plain.
	unfenced bool
	// keeps is the recipe's recipe.Lock.Keeps: what it leaves on purpose.
	keeps func(dir, path string) bool
	// steps are the queue's steps; the zero value: the good ones.
	steps queue.Steps
}

// electVariants are the election exhibits, in the order of Exhibits.
func electVariants() []electVariant {
	return []electVariant{
		{name: NameElectHerd, part: "Rule", rule: watchLeader},
		{name: NameElectCached, part: "Term", term: cachedTerm, keeps: counterNode},
		{name: NameElectUnfenced, part: "Write", unfenced: true},
		{name: NameElectAbsence, part: "Watch", steps: queue.Steps{Watch: absenceMeansGranted}},
	}
}

// electRecipe returns the recipe of the election variant called name.
func electRecipe(name string) recipe.Lock {
	for _, v := range electVariants() {
		if v.name == name {
			return recipe.Lock{Name: v.name, Acquire: v.campaign, Terms: true, Keeps: v.keeps}
		}
	}
	panic("zoo: no election variant " + name)
}

// campaign is package election's Campaign with v's parts: join, wait to
// lead under the rule, take the term, and lead only if the session that
// owns the node is still the client's.
func (v electVariant) campaign(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
	if err := checkArgs(dir, id); err != nil {
		return nil, err
	}
	rule, term := v.rule, v.term
	if rule == nil {
		rule = queue.Predecessor
	}
	if term == nil {
		term = czxidTerm
	}
	q := queue.Queue{Conn: conn, Dir: dir}
	makeTerm, err := term(ctx, q)
	if err != nil {
		return nil, wrap(v.name, dir, err)
	}
	h, err := queue.Enqueue(ctx, q, queue.Request{
		Kind: candKind, GUID: id, Data: []byte(id), Kinds: []string{candKind}, Rule: rule, Steps: v.steps,
	})
	if err != nil {
		return nil, wrap(v.name, dir, err)
	}
	t, err := makeTerm(ctx, h)
	if err == nil {
		err = h.Check()
	}
	if err != nil {
		if rerr := h.Release(context.WithoutCancel(ctx)); rerr != nil && !errors.Is(rerr, queue.ErrSessionLost) {
			err = errors.Join(err, rerr)
		}
		return nil, wrap(v.name, dir, err)
	}
	l := leadership{h: h, term: t}
	if v.unfenced {
		return l, nil
	}
	return fencedLeadership{l}, nil
}

// watchLeader is electHerd's rule: the first candidate leads, and every
// other one watches the first.
func watchLeader(ms []queue.Member, i int, _ map[string]bool) (string, bool) {
	if i == 0 {
		return "", true
	}
	return ms[0].Name, false
}

// termFunc makes a new leader's term.
type termFunc func(ctx context.Context, h *queue.Hold) (int64, error)

// czxidTerm is the good election's term: the czxid of the leader's node,
// read once it leads.
func czxidTerm(context.Context, queue.Queue) (termFunc, error) {
	return func(ctx context.Context, h *queue.Hold) (int64, error) { return h.Token(ctx) }, nil
}

// cachedTerm is electCached's term: it reads the counter node (made with
// "0" if missing) as the candidate joins, and once it leads writes back
// and returns the value it read plus one. Requests lost to connection
// loss are retried: the defect is the value read too early and written
// back unchecked, not the retry.
func cachedTerm(ctx context.Context, q queue.Queue) (termFunc, error) {
	p := q.Dir + "-term"
	var cached int64
	err := retryLoss(ctx, q.Conn, func() error {
		data, _, err := q.Conn.Get(ctx, p)
		if errors.Is(err, zkapi.ErrNoNode) {
			data, err = []byte("0"), ensureCounter(ctx, q.Conn, p)
		}
		if err == nil {
			cached, err = strconv.ParseInt(string(data), 10, 64)
		}
		return err
	})
	return func(ctx context.Context, h *queue.Hold) (int64, error) {
		term := cached + 1
		return term, retryLoss(ctx, q.Conn, func() error {
			_, err := q.Conn.Set(ctx, p, []byte(strconv.FormatInt(term, 10)), zkapi.AnyVersion)
			return err
		})
	}, err
}

// counterNode is what cachedTerm keeps on purpose: its counter node,
// which outlives every candidate so that the next one reads the last
// term.
func counterNode(dir, path string) bool { return path == dir+"-term" }

// ensureCounter creates the counter node at p with "0", with its parents;
// nodes that exist already are fine.
func ensureCounter(ctx context.Context, conn zkapi.Conn, p string) error {
	for i := 1; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		data := []byte(nil)
		if i == len(p) {
			data = []byte("0")
		}
		if _, err := conn.Create(ctx, p[:i], data, zkapi.Persistent); err != nil && !errors.Is(err, zkapi.ErrNodeExists) {
			return err
		}
	}
	return nil
}

// retryLoss runs op until it ends in anything but connection loss.
func retryLoss(ctx context.Context, conn zkapi.Conn, op func() error) error {
	for {
		err := op()
		if !errors.Is(err, zkapi.ErrConnectionLoss) {
			return err
		}
		if err := queue.AwaitLink(ctx, conn); err != nil {
			return err
		}
	}
}

// leadership is an election exhibit's Held: the leader's node and its
// term, which Token returns without a request. Release resigns.
type leadership struct {
	h    *queue.Hold
	term int64
}

func (l leadership) Release(ctx context.Context) error { return l.h.Release(ctx) }

func (l leadership) Token(context.Context) (int64, error) { return l.term, nil }

// fencedLeadership is a leadership whose writes are fenced by a check
// that the leader's node still exists, as Leadership.Fenced does.
type fencedLeadership struct{ leadership }

func (l fencedLeadership) Fenced(ctx context.Context, ops ...zkapi.Op) ([]zkapi.OpResult, error) {
	return l.h.Fenced(ctx, ops...)
}
