package netserver_test

import (
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/zksim/zksim/internal/netserver"
)

// TestParseJAAS_Users: the users are the user_ options of the Server
// section's modules, whatever else the file holds (comments, other
// sections, other options, escapes in quoted values), as ZooKeeper's
// SaslServerCallbackHandler reads them.
func TestParseJAAS_Users(t *testing.T) {
	const file = `// kazoo's harness's users, and more
Client {
    org.apache.zookeeper.server.auth.DigestLoginModule required
    username="bob" password="not a server user";
};
Server {
    /* two modules: both count */
    org.apache.zookeeper.server.auth.DigestLoginModule required
    user_super="super_secret"
    user_jaasuser="jaas_password"
    debug=true;
    other.Module Optional user_q="a \"quoted\" \\ one";
};`
	got, err := netserver.ParseJAAS(file)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"super": "super_secret", "jaasuser": "jaas_password", "q": `a "quoted" \ one`}
	if !maps.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestParseJAAS_Errors: a file serve cannot take users from is an error
// that says where.
func TestParseJAAS_Errors(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{`Client { m required user_a="b"; };`, "no Server section"},
		{`Server { m required debug=true; };`, "the Server section has no user_NAME option"},
		{`Server { m required user_a="b" };`, `line 1: expected option name, got "}"`},
		{`Server { m required user_a "b"; };`, `line 1: expected "="`},
		{`Server { m always user_a="b"; };`, `control flag "always"`},
		{"Server {\n m required user_a=\"b;\n};", `line 2: unterminated string`},
		{`Server { m required user_a="b"; } /* no end`, "unterminated comment"},
		{`Server { m required user_a="b"; }`, `end of file: expected ";"`},
		{`"Server" { m required user_a="b"; };`, `expected section name, got "Server"`},
	} {
		_, err := netserver.ParseJAAS(tc.file)
		if !errors.Is(err, netserver.ErrJAAS) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseJAAS(%q) = %v, want ErrJAAS with %q", tc.file, err, tc.want)
		}
	}
}
