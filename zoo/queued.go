package zoo

import (
	"context"
	"fmt"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// variant is a queue exhibit: the queue recipe of internal/queue, which
// lock.Mutex and rwlock run, with the one field of queue.Steps named by
// step set in steps. The planted bug is exactly that field; everything
// else is the good lock's code.
type variant struct {
	name   string
	step   string // the field of queue.Steps that carries the defect
	steps  queue.Steps
	shared bool // read/write: nodes "read-" and "write-", rwlock's rules
	leases int  // a counting semaphore of this many leases (semaphore.go)
}

// variants are the exhibits that are the queue with one step swapped, in
// the order of Exhibits. singleNode (no queue at all) and goZKLock (a
// transcription of go-zookeeper's code, several defects) are not.
func variants() []variant {
	vs := []variant{
		{name: NameDirWatch, step: "Watch", steps: queue.Steps{Watch: watchDir}},
		{name: NameHerdShared, step: "Watch", steps: queue.Steps{Watch: watchDir}, shared: true},
		{name: NameNoGUIDRetry, step: "FindLost", steps: queue.Steps{FindLost: lookNowhere}},
		{name: NameAssumeOnWake, step: "Watch", steps: queue.Steps{Watch: wakeMeansGranted}},
		{name: NameExistsAbsence, step: "Watch", steps: queue.Steps{Watch: absenceMeansGranted}},
		{name: NameTimeoutLeak, step: "Abandon", steps: queue.Steps{Abandon: stayOnTimeout}},
		{name: NameDeleteFirstChild, step: "Release", steps: queue.Steps{Release: deleteFirstChildRelease}},
		{name: NameSplitDash, step: "Order", steps: queue.Steps{Order: afterFirstDash}},
		{name: NameAdoptDying, step: "Owns", steps: queue.Steps{Owns: anyOwner}},
	}
	vs = append(vs, semaphoreVariants()...)
	return append(vs, variant{name: NameLiveAbsence, step: "Watch", steps: queue.Steps{Watch: absenceWhileAlive}})
}

// queued returns the recipe of the variant called name.
func queued(name string) recipe.Lock {
	for _, v := range variants() {
		if v.name == name {
			return v.recipe()
		}
	}
	panic("zoo: no queue variant " + name)
}

// Node kinds, as lock.Mutex and rwlock name their nodes.
const (
	lockKind  = "lock"
	readKind  = "read"
	writeKind = "write"
)

func (v variant) recipe() recipe.Lock {
	if v.leases > 0 {
		return v.semaphoreRecipe()
	}
	if !v.shared {
		return recipe.Lock{Name: v.name, Acquire: v.acquire(lockKind, []string{lockKind}, queue.Predecessor)}
	}
	kinds := []string{readKind, writeKind}
	return recipe.Lock{
		Name:        v.name,
		Acquire:     v.acquire(writeKind, kinds, queue.Predecessor),
		AcquireRead: v.acquire(readKind, kinds, queue.Reader(writeKind)),
	}
}

// acquire joins the queue as a node "<kind>-<id>-<seq>" holding the id,
// and waits for its turn under rule.
func (v variant) acquire(kind string, kinds []string, rule queue.Rule) acquireFunc {
	return func(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
		if err := checkArgs(dir, id); err != nil {
			return nil, err
		}
		h, err := queue.Enqueue(ctx, queue.Queue{Conn: conn, Dir: dir}, queue.Request{
			Kind: kind, GUID: id, Data: []byte(id),
			Kinds: kinds, Rule: rule, Steps: v.steps,
		})
		if err != nil {
			return nil, wrap(v.name, dir, err)
		}
		return held{h}, nil
	}
}

// acquireFunc is the type of recipe.Lock's Acquire and AcquireRead.
type acquireFunc = func(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error)

// held is a variant's recipe.Held. It offers neither Token nor Fenced: the
// designs the zoo keeps had no fencing.
type held struct{ h *queue.Hold }

func (h held) Release(ctx context.Context) error { return h.h.Release(ctx) }

// checkArgs refuses lock paths and holder ids the recipes cannot use, by
// the good lock's rules (queue.CheckConfig); an id must be given.
func checkArgs(dir, id string) error {
	if id == "" {
		return fmt.Errorf("%w: empty holder id", recipe.ErrConfig)
	}
	_, err := queue.CheckConfig(dir, id)
	return err
}

// wrap names the recipe and the lock in an error.
func wrap(name, dir string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s %s: %w", name, dir, err)
}
