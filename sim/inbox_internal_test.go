package sim

import (
	"context"
	"testing"
)

// TestStartClients_InboxesApart: the clients' first inbox arrays are cut
// from one allocation; a client whose inbox outgrows its room moves to
// an array of its own and never writes into the next client's.
func TestStartClients_InboxesApart(t *testing.T) {
	s, err := newSim(Config{}, NewSeeded(1))
	if err != nil {
		t.Fatal(err)
	}
	idle := func(context.Context, *Client) error { return nil }
	s.startClients([]Program{idle, idle})
	defer s.stop()
	c0, c1 := s.clients[0], s.clients[1]
	c1.inbox = append(c1.inbox, message{isReply: true})
	for range 3 * inboxRoom {
		c0.inbox = append(c0.inbox, message{})
	}
	if len(c1.inbox) != 1 || !c1.inbox[0].isReply {
		t.Fatalf("c2's inbox changed when c1's grew: %+v", c1.inbox)
	}
}
