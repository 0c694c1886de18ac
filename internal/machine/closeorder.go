package machine

import (
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// closeOrder sorts the paths of a closing session's ephemerals into the
// order ZooKeeper deletes them. PrepRequestProcessor puts into the
// closeSession transaction a clone of the session's set of ephemerals (a
// java.util.HashSet), in the clone's iteration order: bucket by bucket of
// its table, and within a bucket in the order the clone was filled, which
// is the original's iteration order (its own buckets, then the order the
// paths were added: creation order, czxid). The original's table has 16
// buckets and doubles each time the set grows past three quarters of it,
// never shrinking (its size follows the session's peak number of
// ephemerals); the clone's is sized for the paths it holds
// (HashMap.putMapEntries). A recursive watch sees this order (checked
// against 3.8.0 by TestDifferential_Real).
func closeOrder(paths []string, czxid func(string) int64, peak int) {
	orig := closeBuckets(peak)
	clone := cloneBuckets(len(paths))
	hash := spreadHash
	slices.SortFunc(paths, func(a, b string) int {
		ha, hb := hash(a), hash(b)
		if ca, cb := ha&uint32(clone-1), hb&uint32(clone-1); ca != cb {
			return int(ca) - int(cb)
		}
		if oa, ob := ha&uint32(orig-1), hb&uint32(orig-1); oa != ob {
			return int(oa) - int(ob)
		}
		switch za, zb := czxid(a), czxid(b); {
		case za < zb:
			return -1
		case za > zb:
			return 1
		}
		return 0
	})
}

// cloneBuckets is the size of the table HashMap.clone gives a copy of n
// entries: the power of two at least (int)(n/0.75f + 1).
func cloneBuckets(n int) int {
	t := int(float32(n)/0.75 + 1)
	b := 1
	for b < t {
		b *= 2
	}
	return b
}

// closeBuckets is the size of the table of a HashSet that held at most
// peak elements.
func closeBuckets(peak int) int {
	buckets := 16
	for peak > buckets*3/4 {
		buckets *= 2
	}
	return buckets
}

// javaStringHash is Java's String.hashCode: over UTF-16 code units.
func javaStringHash(s string) int32 {
	var h int32
	for i := 0; i < len(s); i++ { // ASCII a byte at a time: node names are
		c := s[i]
		if c >= utf8.RuneSelf {
			return javaStringHashFrom(h, s[i:])
		}
		h = 31*h + int32(c)
	}
	return h
}

// javaStringHashFrom continues javaStringHash's h over the rest of s,
// decoding it.
func javaStringHashFrom(h int32, s string) int32 {
	for _, r := range s {
		if r < 0x10000 {
			h = 31*h + int32(r)
			continue
		}
		a, b := utf16.EncodeRune(r)
		h = 31*(31*h+int32(a)) + int32(b)
	}
	return h
}
