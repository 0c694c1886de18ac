package ensemble

// WithPorts is o with its ports chosen by choose, in at most attempts
// port sets: how a test takes a port away from a member.
func WithPorts(o Options, choose func(n int) ([]int, error), attempts int) Options {
	o.ports, o.attempts = choose, attempts
	return o
}

// FreePorts is the default port chooser.
var FreePorts = freePorts
