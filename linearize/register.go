package linearize

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// RegisterOp is one operation on a znode used as a versioned register: a
// read returns (Value, Version); a set with Expect (-1: any version) either
// succeeds, returning the new Version, or fails with BadVersion. An
// operation whose outcome is unknown (connection loss) has Unknown set and
// may or may not have taken effect.
type RegisterOp struct {
	Client  int
	Read    bool
	Value   string // set: the value written; read: the value seen
	Expect  int32  // set: expected version
	Version int32  // the version read, or the version after a set
	Ok      bool   // set: succeeded
	Unknown bool
	Call    int64
	Return  int64
}

type regState struct {
	value   string
	version int32
}

var registerModel = porcupine.Model{
	Init: func() interface{} { return regState{version: 0} },
	Step: func(state, input, output interface{}) (bool, interface{}) {
		s, op := state.(regState), input.(RegisterOp)
		out := output.(RegisterOp)
		if op.Read {
			return out.Value == s.value && out.Version == s.version, s
		}
		applies := op.Expect == -1 || op.Expect == s.version
		next := regState{value: op.Value, version: s.version + 1}
		switch {
		case out.Unknown: // either outcome is legal
			if applies {
				return true, next
			}
			return true, s
		case out.Ok:
			return applies && out.Version == next.version, next
		default:
			return !applies, s
		}
	},
	Equal: func(a, b interface{}) bool { return a.(regState) == b.(regState) },
	DescribeOperation: func(input, output interface{}) string {
		op, out := input.(RegisterOp), output.(RegisterOp)
		if op.Read {
			return fmt.Sprintf("get -> %q v%d", out.Value, out.Version)
		}
		return fmt.Sprintf("set %q if v%d -> ok=%v v%d unknown=%v", op.Value, op.Expect, out.Ok, out.Version, out.Unknown)
	},
}

// Register checks that versioned gets and sets on one znode are
// linearizable (ZooKeeper promises it for writes and for reads after
// sync). Unknown-outcome sets may count as applied or not. The search is
// porcupine's, bounded by RegisterSteps model steps rather than by time,
// so the verdict is the same on every machine. decided is false when the
// search met its bound before it could tell (many unknown outcomes open at
// once make it exponential): then linearizable is false too, and nothing
// was ruled out.
func Register(ops []RegisterOp) (linearizable, decided bool) {
	return register(ops, RegisterSteps)
}

func register(ops []RegisterOp, steps int64) (linearizable, decided bool) {
	history := make([]porcupine.Operation, len(ops))
	for i, op := range ops {
		ret := op.Return
		if op.Unknown {
			ret = 1 << 62 // may take effect any time after its call
		}
		history[i] = porcupine.Operation{ClientId: op.Client, Input: op, Output: op, Call: op.Call, Return: ret}
	}
	m, b := bounded(registerModel, steps)
	res := porcupine.CheckOperationsTimeout(m, history, 0)
	if b.reached() {
		return false, false
	}
	return res == porcupine.Ok, true
}
