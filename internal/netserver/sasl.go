package netserver

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/wire"
)

// This file is ZooKeeper 3.8's SASL with DIGEST-MD5 (RFC 2831), the
// mechanism of a JAAS Server section of DigestLoginModule users
// (Config.SASLUsers): ZooKeeperServer.processSasl over Java's
// DigestMD5Server, whose answers were recorded from 3.8.0 (sasl_test.go).
// The exchange belongs to the connection: the client's first, empty token
// (whatever it holds) gets the challenge; its digest-response gets
// rspauth, and the connection gains the identity sasl:USER. Any token the
// exchange cannot take (a wrong password, an unknown user, a token after
// completion) is answered AuthFailed with a null token, and the
// connection closes; the session lives on.
//
// One difference is deliberate: 3.8.0 checks an unknown user's response
// against the password of the last known user any connection named
// (SaslServerCallbackHandler keeps that name server-wide), so an unknown
// name with that password logs in; serve refuses every unknown user. Without users every token is answered empty, as by a
// server without a JAAS Server section.

// saslRealm and saslURI are what ZooKeeper's SaslServer is created with
// (protocol "zookeeper", server name "zk-sasl-md5", SecurityUtils): the
// realm its challenge offers and the digest-uri a response must name.
const (
	saslRealm = "zk-sasl-md5"
	saslURI   = "zookeeper/" + saslRealm
)

// errSASL is why an exchange failed: the log line says which step.
var errSASL = errors.New("netserver: SASL authentication failed")

// saslExchange is one connection's DIGEST-MD5 state: the nonce of the
// challenge sent ("" before it) and whether the exchange completed.
type saslExchange struct {
	nonce    string
	complete bool
}

// sasl answers a GetSASLRequest; false ends the connection.
func (s *Server) sasl(c *conn, xid int32, token []byte) bool {
	if s.cfg.SASLUsers == nil {
		// No SASL server is configured: processSasl's NullPointerException
		// is caught, and the reply is an empty token with zxid 0.
		c.send(wire.AppendResponse(nil, xid, 0, 0, wire.SASLResponse{}))
		return true
	}
	reply, user, err := s.saslStep(c, token)
	if err != nil {
		s.logf("%s: session %#x: %v", c.nc.RemoteAddr(), c.session, err)
		c.send(wire.AppendResponse(nil, xid, 0, wire.CodeAuthFailed, wire.SASLResponse{}))
		s.drop(c)
		return false
	}
	if user != "" {
		s.m.AddIdentity(c.session, machine.AuthID{Scheme: "sasl", ID: user})
		s.logf("session %#x: SASL identity %s", c.session, user)
	}
	c.send(wire.AppendResponse(nil, xid, 0, 0, wire.SASLResponse{Token: reply}))
	return true
}

// saslStep takes the connection's next token: the challenge to send, or
// rspauth and the user authenticated.
func (s *Server) saslStep(c *conn, token []byte) (reply []byte, user string, err error) {
	x := &c.sasl
	switch {
	case x.complete:
		return nil, "", fmt.Errorf("%w: a token after the exchange completed", errSASL)
	case x.nonce == "":
		// Whatever the first token holds (DIGEST-MD5 has no initial
		// response), 3.8.0 answers it with the challenge.
		x.nonce, err = newNonce()
		if err != nil {
			return nil, "", err
		}
		return []byte(fmt.Sprintf(`realm="%s",nonce="%s",charset=utf-8,algorithm=md5-sess`, saslRealm, x.nonce)), "", nil
	}
	d, err := parseDigestResponse(string(token))
	if err != nil {
		return nil, "", err
	}
	rspauth, user, err := verifyDigest(d, x.nonce, s.cfg.SASLUsers)
	if err != nil {
		return nil, "", err
	}
	x.complete = true
	return []byte("rspauth=" + rspauth), user, nil
}

// newNonce is 30 bytes from crypto/rand in base64, as long as the real
// server's: a client must not be able to guess it.
func newNonce() (string, error) {
	b := make([]byte, 30)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("netserver: SASL nonce: %w", err)
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// parseDigestResponse reads a digest-response: comma-separated
// directives, each name=token or name="quoted string" (RFC 2831 2.1.2),
// none repeated.
func parseDigestResponse(s string) (map[string]string, error) {
	d := map[string]string{}
	for s = strings.TrimLeft(s, " \t,"); s != ""; s = strings.TrimLeft(s, " \t,") {
		name, rest, ok := strings.Cut(s, "=")
		if !ok {
			return nil, fmt.Errorf("%w: directive %q without a value", errSASL, s)
		}
		name = strings.ToLower(strings.TrimSpace(name))
		val, rest, err := digestValue(strings.TrimLeft(rest, " \t"))
		if err != nil {
			return nil, err
		}
		if _, dup := d[name]; dup {
			return nil, fmt.Errorf("%w: directive %s repeated", errSASL, name)
		}
		d[name], s = val, rest
	}
	return d, nil
}

// digestValue reads a token (up to a comma) or a quoted string with
// backslash escapes from the start of s.
func digestValue(s string) (val, rest string, err error) {
	if !strings.HasPrefix(s, `"`) {
		val, rest, _ = strings.Cut(s, ",")
		return strings.TrimSpace(val), rest, nil
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i++; i < len(s) {
				b.WriteByte(s[i])
			}
		case '"':
			return b.String(), s[i+1:], nil
		default:
			b.WriteByte(s[i])
		}
	}
	return "", "", fmt.Errorf("%w: unterminated quoted string", errSASL)
}

// verifyDigest checks a digest-response against the challenge's nonce
// and the users, in DigestMD5Server's order, and returns rspauth and the
// user. Names and passwords are UTF-8 when the response says
// charset=utf-8, ISO 8859-1 otherwise.
func verifyDigest(d map[string]string, nonce string, users map[string]string) (string, string, error) {
	fail := func(format string, a ...any) (string, string, error) {
		return "", "", fmt.Errorf("%w: %s", errSASL, fmt.Sprintf(format, a...))
	}
	utf8 := strings.EqualFold(d["charset"], "utf-8")
	user, hasUser := d["username"]
	qop := d["qop"]
	switch {
	case d["charset"] != "" && !utf8:
		return fail("charset %q", d["charset"])
	case !hasUser:
		return fail("no username")
	case d["realm"] != saslRealm:
		return fail("realm %q, not %q", d["realm"], saslRealm)
	case d["nonce"] != nonce:
		return fail("nonce mismatch")
	case d["cnonce"] == "":
		return fail("no cnonce")
	case d["nc"] != "00000001":
		return fail("nonce count %q, not 00000001", d["nc"])
	case qop != "" && qop != "auth":
		return fail("qop %q: only auth is offered", qop)
	case d["digest-uri"] != saslURI:
		return fail("digest-uri %q, not %q", d["digest-uri"], saslURI)
	}
	if !utf8 {
		user = latin1ToUTF8(user)
	}
	password, known := users[user]
	if !known {
		return fail("unknown user %q", user)
	}
	if !utf8 {
		password = utf8ToLatin1(password)
	}
	// The name's bytes as sent: re-encoding the name read gives them back.
	ha1 := digestHA1(d["username"], d["realm"], password, nonce, d["cnonce"], d["authzid"])
	want := digestKD(ha1, nonce, d["nc"], d["cnonce"], "AUTHENTICATE:"+saslURI)
	if subtle.ConstantTimeCompare([]byte(want), []byte(d["response"])) != 1 {
		return fail("wrong password for user %q", user)
	}
	return digestKD(ha1, nonce, d["nc"], d["cnonce"], ":"+saslURI), user, nil
}

// digestHA1 is HEX(H(A1)) with md5-sess: A1 = H(user:realm:password) ":"
// nonce ":" cnonce [":" authzid].
func digestHA1(user, realm, password, nonce, cnonce, authzid string) string {
	secret := md5.Sum([]byte(user + ":" + realm + ":" + password))
	a1 := string(secret[:]) + ":" + nonce + ":" + cnonce
	if authzid != "" {
		a1 += ":" + authzid
	}
	return md5Hex(a1)
}

// digestKD is a response value for qop auth: HEX(KD(HEX(H(A1)),
// nonce:nc:cnonce:auth:HEX(H(A2)))).
func digestKD(ha1, nonce, nc, cnonce, a2 string) string {
	return md5Hex(ha1 + ":" + nonce + ":" + nc + ":" + cnonce + ":auth:" + md5Hex(a2))
}

func md5Hex(s string) string {
	h := md5.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}

// latin1ToUTF8 reads s's bytes as ISO 8859-1 characters.
func latin1ToUTF8(s string) string {
	r := make([]rune, len(s))
	for i := range len(s) {
		r[i] = rune(s[i])
	}
	return string(r)
}

// utf8ToLatin1 encodes s in ISO 8859-1, '?' for what it cannot hold (as
// Java's String.getBytes does).
func utf8ToLatin1(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xff {
			r = '?'
		}
		b = append(b, byte(r))
	}
	return string(b)
}
