package wire

// Reconfig is a reconfig request (opcode 16): incremental when NewMembers
// is null (Joining: comma-separated server.N=... lines; Leaving:
// comma-separated server ids), otherwise the whole new membership. A nil
// field is jute's null, an empty one is "". CurConfigID is the config
// version the change applies to, -1 for any. A server without
// reconfigEnabled (3.8's default) refuses it with CodeReconfigDisabled.
type Reconfig struct {
	Joining, Leaving, NewMembers []byte
	CurConfigID                  int64
}

func (Reconfig) local() {}
