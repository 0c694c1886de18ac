package zktest

// Srvr exports srvr to the tests.
var Srvr = srvr
