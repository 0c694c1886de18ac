package machine_test

import (
	"fmt"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/zkapi"
)

// Driving a Machine by hand, as the simulator and the wire server do: two
// sessions, a watch, a change that fires it, and time passing until a
// session whose connection dropped expires, taking its ephemeral node.
func Example() {
	m, err := machine.NewMachine(machine.Config{TickMillis: 1000, SortChildren: true})
	if err != nil {
		panic(err)
	}
	a, _ := m.CreateSession(0, 4000) // on the leader, a 4 s (4 tick) timeout
	b, _ := m.CreateSession(0, 4000)

	fmt.Println(m.Do(a.ID, proto.Create{Path: "/lock", Mode: zkapi.Ephemeral}))
	fmt.Println(m.Do(b.ID, proto.Exists{Path: "/lock", Watch: true}))

	// a's connection drops: the server stops hearing from it, and virtual
	// time runs out its timeout.
	m.Detach(a.ID)
	for len(m.TakeNotified()) == 0 {
		if expired := m.Tick(); len(expired) > 0 {
			fmt.Printf("t=%d: session %#x expired\n", m.Now(), expired[0])
		}
	}
	for _, n := range m.TakeNotifications(b.ID) {
		fmt.Println("b is told:", n)
	}
	fmt.Println(m.Do(b.ID, proto.GetChildren{Path: "/"}))
	// Output:
	// z=3 OK path=/lock
	// z=3 OK stat={c=3 m=3 p=3 t=0/0 v=0 cv=0 av=0 eph=0x100000000000000 dl=0 nc=0}
	// t=4000: session 0x100000000000000 expired
	// b is told: NodeDeleted /lock z=4
	// z=4 OK stat={c=0 m=0 p=4 t=0/0 v=0 cv=1 av=0 eph=0x0 dl=0 nc=1} children=[zookeeper]
}
