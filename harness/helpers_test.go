package harness_test

import "github.com/zksim/zksim/fakezk"

func fakezkFollowers(seed uint64) fakezk.Config {
	return fakezk.Config{Seed: seed, Followers: int(seed % 2)}
}
