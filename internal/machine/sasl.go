package machine

import "strings"

// This file is what ZooKeeper's sasl scheme needs of the Machine: the
// provider (SASLAuthenticationProvider) registered, and the identity a
// server's own SASL exchange establishes. The exchange itself is the wire
// server's (internal/netserver): the Machine never sees a SASL token.

// RegisterSASL registers the sasl scheme's provider, as a server whose
// configuration names SASLAuthenticationProvider (authProvider.1) does:
// sasl ACL entries are then valid (a Kerberos-style name), "auth" entries
// expand to the connection's sasl identities too, and a sasl entry grants
// its permissions to the identity of that name and to the one named
// "super". Without it a sasl entry is InvalidACL, as on a default server.
func (m *Machine) RegisterSASL() { m.sasl = true } // not hashed: a server calls it before any session

// AddIdentity adds id to the identities of the session's connection, as
// ZooKeeperServer.processSasl does once an exchange completes (sasl:USER). Like an auth packet's, it lasts
// until the connection is detached. A session that is gone is ignored.
func (m *Machine) AddIdentity(session int64, id AuthID) {
	m.gen++ // see Machine.gen
	if s := m.sessions[session]; s != nil {
		s.addID(id)
	}
}

// validKerberosName is SASLAuthenticationProvider.isValid: KerberosName's
// constructor accepts a name without '@', or one that matches
// NAME[/HOST]@REALM with no other '/' or '@'.
func validKerberosName(id string) bool {
	name, realm, ok := strings.Cut(id, "@")
	if !ok {
		return true
	}
	return !strings.ContainsAny(realm, "/@") && strings.Count(name, "/") <= 1
}

// saslMatches is SASLAuthenticationProvider.matches: the same name, or an
// identity named "super", which every sasl entry grants
// (zookeeper.letAnySaslUserDoX is not modelled).
func saslMatches(id, aclID string) bool { return id == "super" || id == aclID }
