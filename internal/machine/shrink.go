package machine

// Go maps keep their buckets when entries are deleted: a watch table that
// once held a million paths holds their room after every watch has gone
// (issue 22 measured 105-136 MiB kept by `zksim serve` after 10M watches
// and every session closed). The maps that grow with watches are rebuilt
// once they have shrunk well below their peak.

// shrinkMin is the smallest peak after which a map is rebuilt: the
// simulator's tables never come near it, so it never pays for a rebuild.
const shrinkMin = 1024

// spareMax bounds Machine.spare: enough for the few paths watched and
// fired again and again, not a list per path of a table that emptied.
const spareMax = 256

// shrunk returns a copy of m sized for what it holds, and true, once m
// holds under a quarter of *peak, the most it held since it was last
// rebuilt, and *peak is at least shrinkMin; then *peak becomes len(m).
// The copy costs len(m), under a third of the deletions since the peak:
// amortised O(1) per deletion. A rebuilt map iterates in another order,
// which changes nothing: Go's map order is random already, and whatever
// iterates these maps hashes them as sets or sorts.
func shrunk[K comparable, V any](m map[K]V, peak *int) (map[K]V, bool) {
	if *peak < shrinkMin || len(m) >= *peak/4 {
		return m, false
	}
	small := make(map[K]V, len(m))
	for k, v := range m {
		small[k] = v
	}
	*peak = len(small)
	return small, true
}
