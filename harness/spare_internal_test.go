package harness

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// A spareCase is a recipe and a workload whose runs a spare is reused in.
type spareCase struct {
	recipe recipe.Lock
	w      Workload
}

// spareCases are workloads whose runs leave every record of a lockRun
// written: faults that expire sessions and lose replies, give-ups by
// deadline, readers, and two directories.
var spareCases = []spareCase{
	{zoo.Mutex(), Workload{}},
	{zoo.RWMutex(), Workload{ReadPercent: 50, TimeoutTicks: 20, TimeoutPercent: 50}},
	{zoo.MultiMutex(), Workload{Clients: 3, TimeoutTicks: 30}},
	{zoo.Mutex(), Workload{Clients: 2, Acquisitions: 1}}, // smaller than the spare's last run
	{zoo.Mutex(), Workload{Clients: 7, Acquisitions: 4}}, // larger
}

var spareFaults = sim.Faults{Percent: 30, LoseRequest: 2, LoseReply: 2, Disconnect: 2, Crash: 1, Pause: 1, Reap: 1}

// runIn runs the schedule of seed of w in spare (nil: a new run), as Run
// does, and returns its Report and its run.
func runIn(t *testing.T, w lockWorkload, seed uint64, spare *lockRun) (*Report, *lockRun) {
	t.Helper()
	s, err := sim.New(sim.Config{Faults: spareFaults, Server: fakezk.Config{Seed: seed, Followers: int(seed % 2)}}, sim.NewSeeded(seed))
	if err != nil {
		t.Fatal(err)
	}
	programs, run := w.start(s, spare)
	return run.Report(s.Run(programs...)), run
}

// reportText is everything a Report says, its trace included.
func reportText(r *Report) string {
	return fmt.Sprintf("%+v\n%+v\n%v\n%v\n%+v\n%+v\n%s", r.Violations, r.Notes, r.Herd, r.Deletes, r.expiries, *r.history,
		r.Result.Trace)
}

// TestLockRun_Reused: a run made in a spare, the run of an earlier
// schedule, is a new run: its fields equal a new one's, slice by slice
// and map by map, whatever the last schedule left in them; its schedule
// gives the same Report and trace; and the Report of the spare's last
// schedule, which a caller may keep, does not change (the zoo's broken
// recipes' Reports among them, with their violations explained).
func TestLockRun_Reused(t *testing.T) {
	cases := slices.Clone(spareCases)
	for _, ex := range zoo.Locks() { // violations, and their explanations, kept in Reports
		cases = append(cases, spareCase{ex.Recipe, Workload{}})
	}
	var spare *lockRun
	var kept *Report
	var keptText string
	for i, tc := range cases {
		w := lockWorkload{Workload: tc.w, Recipe: tc.recipe}
		for seed := uint64(1); seed <= 20; seed++ {
			name := fmt.Sprintf("case %d (%s) seed %d", i, tc.recipe.Name, seed)
			if spare != nil {
				s, err := sim.New(sim.Config{}, sim.NewSeeded(seed))
				if err != nil {
					t.Fatal(err)
				}
				d := w.withDefaults()
				scribble(reflect.ValueOf(spare.forget()).Elem())
				if path, ok := sameValue(reflect.ValueOf(*newLockRun(s, d, nil)), reflect.ValueOf(*newLockRun(s, d, spare)), "lockRun"); !ok {
					t.Fatalf("%s: a run made in a spare differs from a new one at %s", name, path)
				}
			}
			fresh, _ := runIn(t, w, seed, nil)
			reused, run := runIn(t, w, seed, spare)
			if got, want := reportText(reused), reportText(fresh); got != want {
				t.Fatalf("%s: the run made in a spare reports\n%s\nwant (a new run's)\n%s", name, got, want)
			}
			if kept != nil && reportText(kept) != keptText {
				t.Fatalf("%s: the Report of the spare's last run changed", name)
			}
			kept, keptText, spare = reused, reportText(reused), run
		}
	}
}

// scribble writes over every field v reaches, and over
// the whole room of its slices, as no run would: what a run made in v
// takes from it must be emptied or written anew.
func scribble(v reflect.Value) {
	v = reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem() // unexported fields too
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			scribble(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			scribble(v.Field(i))
		}
	case reflect.Slice:
		v.SetLen(v.Cap())
		fallthrough
	case reflect.Array:
		for i := range v.Len() {
			scribble(v.Index(i))
		}
	case reflect.Map:
		if !v.IsNil() {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			scribble(k)
			scribble(e)
			v.SetMapIndex(k, e)
		}
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.String:
		v.SetString("scribbled")
	}
}

// sameValue reports whether a and b hold the same values, and if not
// where they differ: pointers are followed (equal pointers are the same),
// slices compared up to their length, and a nil map or slice is an empty
// one. Room (capacity) is not a value.
func sameValue(a, b reflect.Value, path string) (string, bool) {
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		switch {
		case a.IsNil() || b.IsNil():
			return path, a.IsNil() == b.IsNil()
		case a.Kind() == reflect.Pointer && a.Pointer() == b.Pointer():
			return path, true
		case a.Kind() == reflect.Interface && a.Elem().Type() != b.Elem().Type():
			return path, false
		}
		return sameValue(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		for i := range a.NumField() {
			if p, ok := sameValue(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); !ok {
				return p, false
			}
		}
		return path, true
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return path, false
		}
		for i := range a.Len() {
			if p, ok := sameValue(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, false
			}
		}
		return path, true
	case reflect.Map:
		if a.Len() != b.Len() {
			return path, false
		}
		for _, k := range a.MapKeys() {
			bv := b.MapIndex(k)
			if !bv.IsValid() {
				return fmt.Sprintf("%s[%v]", path, k), false
			}
			if p, ok := sameValue(a.MapIndex(k), bv, fmt.Sprintf("%s[%v]", path, k)); !ok {
				return p, false
			}
		}
		return path, true
	case reflect.Func, reflect.Chan:
		return path, a.IsNil() == b.IsNil()
	case reflect.Bool:
		return path, a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return path, a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return path, a.Uint() == b.Uint()
	case reflect.String:
		return path, a.String() == b.String()
	}
	panic(fmt.Sprintf("sameValue: %s: kind %v", path, a.Kind()))
}
