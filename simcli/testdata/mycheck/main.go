// Command mycheck is what a user of zksim writes to check a recipe of
// their own with zksim's command line: run, replay, list and merge.
// TestMain_UserProgram builds it. Its recipe, mylock, is broken: it is
// zoo/splitdash under another name, which zksim itself does not know.
package main

import (
	"github.com/zksim/zksim/simcli"
	"github.com/zksim/zksim/zoo"
)

func main() {
	ex, _ := zoo.Lookup(zoo.NameSplitDash)
	mylock := ex.Recipe
	mylock.Name = "mylock"
	simcli.Main(mylock)
}
