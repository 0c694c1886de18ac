package linearize

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// unknownWrites is a register history that porcupine can only reject by
// trying every subset and order of n sets whose outcome is unknown: a
// read, concurrent with all of them, returns a value none of them wrote.
// Its search grows as n*2^n.
func unknownWrites(n int) []RegisterOp {
	var ops []RegisterOp
	for i := range n {
		ops = append(ops, RegisterOp{Client: i, Value: fmt.Sprint("v", i), Expect: -1, Unknown: true, Call: int64(i), Return: int64(i) + 1})
	}
	return append(ops, RegisterOp{Client: n, Read: true, Value: "nobody wrote this", Version: 1, Call: int64(n), Return: int64(n) + 1})
}

// A history the bound cannot decide is reported undecided, never as a
// violation; with room enough the same history is decided exactly.
func TestRegister_UndecidedWithinBound(t *testing.T) {
	h := unknownWrites(8)
	ok, decided := register(h, 1000)
	if ok || decided {
		t.Fatalf("bound of 1000 steps: linearizable=%v decided=%v, want undecided", ok, decided)
	}
	if ok2, decided2 := register(h, 1000); ok2 != ok || decided2 != decided {
		t.Fatalf("same history, same bound, another answer: %v/%v then %v/%v", ok, decided, ok2, decided2)
	}
	ok, decided = register(h, RegisterSteps)
	if ok || !decided {
		t.Fatalf("default bound: linearizable=%v decided=%v, want a decided violation", ok, decided)
	}
	// A legal history of the same shape whose linearization the search
	// tries first is decided at once.
	h[len(h)-1].Value, h[len(h)-1].Version = "v7", 8
	if ok, decided := register(h, 1000); !ok || !decided {
		t.Fatalf("legal history: linearizable=%v decided=%v", ok, decided)
	}
}

// The default bound leaves histories beyond it undecided, not violated.
func TestRegister_DefaultBoundUndecided(t *testing.T) {
	if testing.Short() {
		t.Skip("searches a million steps")
	}
	if ok, decided := Register(unknownWrites(20)); ok || decided {
		t.Fatalf("linearizable=%v decided=%v, want undecided", ok, decided)
	}
}

// registerRun simulates clients doing versioned reads and compare-and-set
// writes on one register: each operation takes effect at one instant
// between its call and its return, and a set whose reply was lost is
// recorded with an unknown outcome. Its history is linearizable.
func registerRun(t *rapid.T, clients, perClient int) []RegisterOp {
	type pending struct {
		op      RegisterOp
		applied bool
	}
	var (
		value   string
		version int32
		now     int64
		ops     []RegisterOp
	)
	open := make([]*pending, clients)
	done := make([]int, clients)
	for {
		var live []int
		for c := range clients {
			if open[c] != nil || done[c] < perClient {
				live = append(live, c)
			}
		}
		if len(live) == 0 {
			return ops
		}
		c := rapid.SampledFrom(live).Draw(t, "client")
		now++
		p := open[c]
		switch {
		case p == nil: // call
			op := RegisterOp{Client: c, Read: done[c]%2 == 0, Call: now}
			if !op.Read {
				op.Value, op.Expect = fmt.Sprintf("c%d.%d", c, done[c]), version
				if rapid.Bool().Draw(t, "blind?") {
					op.Expect = -1
				}
			}
			open[c] = &pending{op: op}
			done[c]++
		case !p.applied: // takes effect
			p.applied = true
			if p.op.Read {
				p.op.Value, p.op.Version = value, version
			} else if p.op.Expect == -1 || p.op.Expect == version {
				value, version = p.op.Value, version+1
				p.op.Ok, p.op.Version = true, version
			}
		default: // returns
			p.op.Return = now
			if !p.op.Read && rapid.IntRange(0, 9).Draw(t, "lost?") == 0 {
				p.op.Unknown, p.op.Ok, p.op.Version = true, false, 0
			}
			ops = append(ops, p.op)
			open[c] = nil
		}
	}
}

// Linearizable histories of the size of the real-server test (4 clients,
// 50 operations each, some outcomes unknown) are decided, and well within
// the bound.
func TestRegister_DecidesRealisticHistories(t *testing.T) {
	most := 0
	rapid.Check(t, func(rt *rapid.T) {
		ops := registerRun(rt, 4, 50)
		if ok, decided := Register(ops); !ok || !decided {
			rt.Fatalf("linearizable=%v decided=%v", ok, decided)
		}
		// The least bound that decides it: steps to the linearization.
		for steps := 64; ; steps *= 2 {
			if ok, _ := register(ops, int64(steps)); ok {
				most = max(most, steps)
				break
			}
		}
	})
	t.Logf("decided within %d steps at most (the bound is %d)", most, RegisterSteps)
	if most > RegisterSteps/16 {
		t.Errorf("realistic histories need %d steps: the bound of %d leaves too little room", most, RegisterSteps)
	}
}
