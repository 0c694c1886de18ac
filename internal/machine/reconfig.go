package machine

import "github.com/zksim/zksim/internal/proto"

// Reconfig commits a reconfiguration for session id: one transaction that
// sets /zookeeper/config to the data build returns for the transaction's
// zxid (ZooKeeper's config names its own version: the zxid, in hex). The
// node's version becomes -1, as the real server's SetDataTxn stamps it,
// and its data watches fire. The reply has the node's new data and Stat.
// What the configuration says, and who may change it, is the caller's
// business: the Machine models no quorum. Like Do, it fails with
// ErrSessionExpired or ErrConnectionLoss for a session gone or detached.
func (m *Machine) Reconfig(id int64, build func(zxid int64) []byte) proto.Reply {
	m.gen++ // see Machine.gen
	s, err := m.requester(id)
	if err != nil {
		return proto.Reply{Zxid: m.zxid, Err: err}
	}
	m.setConfig(build)
	m.CatchUp(s.replica, m.zxid)
	r := m.replicas[s.replica]
	n := r.tree[configPath]
	return proto.Reply{Zxid: r.zxid, Data: n.data, Stat: n.view()}
}

// InitConfig writes the ensemble's first configuration, as the first
// leader does when it starts, in a transaction of its own.
func (m *Machine) InitConfig(build func(zxid int64) []byte) {
	m.gen++ // see Machine.gen
	m.setConfig(build)
}

func (m *Machine) setConfig(build func(zxid int64) []byte) {
	m.newTxn()
	m.change(prim{kind: primConfig, path: configPath, data: build(m.zxid)}, where{})
	m.dispatch()
}
