package machine

import (
	"testing"
	"unicode/utf16"
)

// javaStringHash is String.hashCode, whose order of children every
// listing follows: over UTF-16 code units (a character above U+FFFF is
// two), on ASCII names and on names that leave ASCII at any point.
// "hello" is 99162322 in Java.
func TestJavaStringHash_AsJava(t *testing.T) {
	if got := javaStringHash("hello"); got != 99162322 {
		t.Errorf(`javaStringHash("hello") = %d, want 99162322`, got)
	}
	for _, s := range []string{"", "a", "n-0000000001", "é", "aé", "ab\U0001F600", "\U0001F600x", "lock-é-0000000007",
		"\xff", "a\xffb", "日本語/x"} {
		var want int32
		for _, u := range utf16.Encode([]rune(s)) {
			want = 31*want + int32(u)
		}
		if got := javaStringHash(s); got != want {
			t.Errorf("javaStringHash(%q) = %d, want %d", s, got, want)
		}
	}
}
