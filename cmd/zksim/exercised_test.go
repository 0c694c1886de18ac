package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// exercisedOf is the "exercised" object of the last JSON line of out.
func exercisedOf(t *testing.T, out string) map[string]any {
	t.Helper()
	objs := jsonLines(t, out)
	ex, ok := objs[len(objs)-1]["exercised"].(map[string]any)
	if !ok {
		t.Fatalf("no exercised object in %v", objs[len(objs)-1])
	}
	return ex
}

// TestRun_ExercisedTextAndJSON: a green run's summary says what it
// exercised (what each fault landed on, and what never happened) in its
// text and, in a stable shape, in -json (golden).
func TestRun_ExercisedTextAndJSON(t *testing.T) {
	var out, text bytes.Buffer
	args := []string{"run", "-recipe", "lock", "-schedules", "20", "-json"}
	if code := run(args, &out, &text); code != 0 {
		t.Fatalf("exit %d\n%s", code, text.String())
	}
	for _, want := range []string{"  exercised              20 runs", "    lose-reply           on create", "    never                "} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text summary lacks %q:\n%s", want, text.String())
		}
	}
	got, err := json.MarshalIndent(exercisedOf(t, out.String()), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	const golden = "testdata/exercised.golden"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("-json exercised changed (go test ./cmd/zksim -run TestRun_ExercisedTextAndJSON -update):\n%s", got)
	}
}

// TestMerge_SumsExercised: merge adds the shards' coverage up to the
// whole run's; a shard's summary without it (written before it was)
// leaves the merged one without it rather than a partial sum.
func TestMerge_SumsExercised(t *testing.T) {
	dir := t.TempDir()
	var whole bytes.Buffer
	run([]string{"run", "-recipe", "lock", "-schedules", "24", "-json"}, &whole, io.Discard)
	var shards []string
	for _, i := range []string{"0", "1"} {
		shards = append(shards, filepath.Join(dir, i+".json"))
		run([]string{"run", "-recipe", "lock", "-schedules", "24", "-shard", i + "/2", "-summary", shards[len(shards)-1]}, io.Discard, io.Discard)
	}
	var merged, text bytes.Buffer
	if code := run(append([]string{"merge", "-json"}, shards...), &merged, io.Discard); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, merged.String())
	}
	if got, want := exercisedOf(t, merged.String()), exercisedOf(t, whole.String()); !reflect.DeepEqual(got, want) {
		t.Fatalf("merged exercised:\n%v\nwhole run's:\n%v", got, want)
	}
	run(append([]string{"merge"}, shards...), &text, io.Discard)
	if !strings.Contains(text.String(), "  exercised              24 runs") {
		t.Errorf("merge's text lacks the exercised table:\n%s", text.String())
	}
	old := filepath.Join(dir, "old.json")
	var s map[string]any
	b, _ := os.ReadFile(shards[1])
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	delete(s, "exercised")
	b, _ = json.Marshal(s)
	if err := os.WriteFile(old, b, 0o644); err != nil {
		t.Fatal(err)
	}
	merged.Reset()
	run([]string{"merge", "-json", shards[0], old}, &merged, io.Discard)
	if objs := jsonLines(t, merged.String()); objs[0]["exercised"] != nil {
		t.Errorf("merge with a summary lacking exercised: %v", objs[0]["exercised"])
	}
}

// TestRun_ExhaustiveExercised: the systematic search's summary counts
// what all its runs exercised.
func TestRun_ExhaustiveExercised(t *testing.T) {
	var out bytes.Buffer
	args := []string{"run", "-recipe", "lock", "-strategy", "exhaustive", "-clients", "2", "-acquisitions", "1",
		"-faults", "lose-reply=1", "-deviations", "1", "-json"}
	if code := run(args, &out, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	objs := jsonLines(t, out.String())
	sum := objs[len(objs)-1]
	ex := exercisedOf(t, out.String())
	lost, _ := ex["faults"].(map[string]any)["lose-reply"].(map[string]any)
	if ex["runs"] != sum["schedules"] || lost["create"] == nil {
		t.Fatalf("search of %v schedules exercised %v", sum["schedules"], ex)
	}
}
