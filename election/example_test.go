package election_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zksim/zksim/election"
	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/zkapi"
)

// Two candidates on the in-memory ZooKeeper: the first leads, resigns,
// and hands over to the second, whose term is higher; an observer sees
// each leader.
func ExampleElection() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := fakezk.MustServer(fakezk.Config{})
	defer srv.Close()
	candidate := func(id string) *election.Election {
		conn, err := srv.Connect(fakezk.ConnOptions{})
		if err != nil {
			panic(err)
		}
		e, err := election.New(conn, "/services/scheduler/leader", election.Options{ID: id, Data: []byte(id)})
		if err != nil {
			panic(err)
		}
		return e
	}
	a, b, observer := candidate("a"), candidate("b"), candidate("observer")

	la, err := a.Campaign(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	won := make(chan *election.Leadership)
	go func() {
		lb, err := b.Campaign(ctx) // waits behind a
		if err != nil {
			fmt.Println(err)
		}
		won <- lb
	}()
	ld, _ := observer.Leader(ctx)
	fmt.Printf("leader %s\n", ld.Data)
	// Leader work: a write that only lands while a still leads.
	_, err = la.Fenced(ctx, zkapi.CreateOp{Path: "/services/scheduler/epoch", Data: []byte(fmt.Sprint(la.Term()))})
	fmt.Println("fenced write:", zkapi.Name(err))
	la.Release(ctx)
	lb := <-won
	next, _ := observer.Observe(ctx, ld.Term)
	fmt.Printf("leader %s, term higher: %v\n", next.Data, lb.Term() > la.Term())
	lb.Release(ctx)
	// Output:
	// leader a
	// fenced write: OK
	// leader b, term higher: true
}
