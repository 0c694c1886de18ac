package queue

// Kin returns an error with text, a recipe's own words for one of
// package recipe's errors (family), which errors.Is takes for family: a
// user compares the election's and the barrier's errors with the
// family's, and reads what each recipe calls them.
func Kin(text string, family error) error { return &kin{text, family} }

type kin struct {
	text   string
	family error
}

func (k *kin) Error() string { return k.text }
func (k *kin) Unwrap() error { return k.family }
