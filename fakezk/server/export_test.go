package server

import "time"

// SetSessionlessTimeout shortens how long s keeps a connection that has
// not completed its handshake; call it before s serves anything.
func SetSessionlessTimeout(s *Server, d time.Duration) { s.sessionless = d }
