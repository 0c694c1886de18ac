package zoo_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zoo"
)

// goodElection adds package election's recipe to the good recipes a
// scenario must not break.
func goodElection(sc scenario) scenario {
	sc.good = append(sc.good, zoo.Election())
	return sc
}

// tokener and fencer are what a recipe.Held may have beside Release:
// recipe.Lease's Token and Fenced.
type (
	tokener interface {
		Token(context.Context) (int64, error)
	}
	fencer interface {
		Fenced(context.Context, ...zkapi.Op) ([]zkapi.OpResult, error)
	}
)

// token is the fencing token, or term, of a held attempt.
func (e *env) token(a *attempt) int64 {
	e.t.Helper()
	tok, ok := a.held.(tokener)
	if !ok {
		e.t.Fatalf("%s: the Held has no Token", a.id)
	}
	t, err := tok.Token(e.ctx)
	if err != nil {
		e.t.Fatalf("%s: Token: %v", a.id, err)
	}
	return t
}

// termsInOrder (bug scenario 3): a leader leads, b and then c join
// behind it; the leader resigns, b leads and resigns, c leads. The three
// terms must grow.
func termsInOrder() scenario {
	return goodElection(scenario{name: "successive-leaders", class: check.SharedTerm,
		run: func(t *testing.T, e *env, r recipe.Lock) (bool, string) {
			leader, b, c := e.queueOfThree(r)
			terms := []int64{e.token(leader)}
			e.release(leader)
			e.mustHold(b)
			terms = append(terms, e.token(b))
			e.release(b)
			e.mustHold(c)
			terms = append(terms, e.token(c))
			e.release(c)
			return terms[1] <= terms[0] || terms[2] <= terms[1], fmt.Sprintf("terms %v", terms)
		}})
}

// replacedLeaderWrites (bug scenario 3): a leader takes its term, and its
// session expires (a pause longer than the timeout) before it writes; b
// leads and writes with its term; then the old leader, resuming, writes
// with its own, fenced if its Held can fence. The resource must refuse it.
func replacedLeaderWrites() scenario {
	return goodElection(scenario{name: "replaced-leader-writes", class: check.Fencing,
		run: func(t *testing.T, e *env, r recipe.Lock) (bool, string) {
			const resource = "/zoo/resource"
			if _, err := e.connect().Create(e.ctx, resource, nil, zkapi.Persistent); err != nil {
				t.Fatal(err)
			}
			old := e.holder(r.Acquire, "old")
			oldTerm := e.token(old)
			if err := e.srv.Expire(old.sid); err != nil {
				t.Fatal(err)
			}
			b := e.holder(r.Acquire, "b")
			if err := write(e.ctx, b, resource, e.token(b)); err != nil {
				t.Fatalf("b's write: %v", err)
			}
			err := write(e.ctx, old, resource, oldTerm)
			e.release(b)
			return err == nil, fmt.Sprintf("the replaced leader's write with term %d: %v", oldTerm, err)
		}})
}

// write stores token in the resource as the harness's workload does:
// fenced when the Held can fence, a plain set otherwise.
func write(ctx context.Context, a *attempt, resource string, token int64) error {
	data := []byte(fmt.Sprint(token))
	if f, ok := a.held.(fencer); ok {
		_, err := f.Fenced(ctx, zkapi.SetOp{Path: resource, Data: data, Version: zkapi.AnyVersion})
		return err
	}
	_, err := a.conn.Set(ctx, resource, data, zkapi.AnyVersion)
	return err
}

// The election exhibits have their terms checked by a harness; the lock
// exhibits, with no terms, have not.
func TestExhibits_ElectionsSayTerms(t *testing.T) {
	for _, ex := range zoo.Locks() {
		_, isElection := electionScenarios[ex.Name]
		if ex.Recipe.Terms != isElection {
			t.Errorf("%s: Terms %v", ex.Name, ex.Recipe.Terms)
		}
	}
}

// electionScenarios are the election exhibits' entries of scenarios.
var electionScenarios = map[string][]scenario{
	zoo.NameElectHerd:     {goodElection(herdOnRelease("www"))},
	zoo.NameElectCached:   {termsInOrder()},
	zoo.NameElectUnfenced: {replacedLeaderWrites()},
}
