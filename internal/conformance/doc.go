// Package conformance runs one scenario language against any ZooKeeper
// behind zkapi: fakezk, a real server through go-zookeeper, and (later)
// fakezk over the wire. Scenario files under testdata/ hold, as expected
// output, what the real ZooKeeper 3.8 answered; every target must answer
// the same, so the real server judges the fake.
//
// A script line is "sN command args...", run by session sN (connected on
// first use; the ACL commands need a zkapi.ACLConn):
//
//	s1 create /a "data" persistent|ephemeral|persistent-sequential|ephemeral-sequential|container|mode=N
//	s1 create /big maxdata[+N]     data just fitting jute.maxbuffer (plus N bytes)
//	s1 create /a "" persistent acl=digest:u:HASH:cdrwa,world:anyone:r
//	s1 addauth digest u:p          (an unknown scheme: err AuthFailed, then reconnected)
//	s1 getacl /a
//	s1 setacl /a open|ACL [version]
//	s1 delete /a [version]
//	s1 exists /a [watch]
//	s1 get /a [watch]
//	s1 set /a "data" [version]
//	s1 children /a [watch] [order]  order: as listed, not sorted (nil: nil)
//	s1 times /a                    ctime against the host clock, mtime after it
//	s1 sleep 1100ms                the runner sleeps, in real time
//	s1 multi create /a "" persistent | delete /b -1 | set /c "x" -1 | check /a 0
//	                               (a multi's create and set read data as create and set do, maxdata too)
//	s1 sync /a
//	s1 close | s1 expire | s1 session | s1 disconnect | s1 reconnect
//	s1 history                     session states since the last history
//	s1 addwatch /a persistent|recursive   a persistent watch, labelled p1, p2...
//	s1 removewatch p1
//
// ACLs are proto.ParseACL's comma-separated scheme:id:perms ("open" is
// world:anyone:cdrwa; "acl=" alone is an empty list). Files named
// *-super.txt need the super user super:test and are skipped on a server
// without it.
//
// Paths are relative to a fresh root per run (so the real server can run a
// file many times); "!/zookeeper" names an absolute path, and "%/a" the
// node of /a's quota, /zookeeper/quota followed by /a's absolute path. Output echoes each
// line with its result; watch handles are labelled w1, w2... (persistent
// ones p1, p2...) and their events are printed after the line that caused
// them. Zxids print as z1, z2... by rank within one block, since only their
// order is comparable.
package conformance
