package pgwire

import (
	"errors"
	"strconv"
)

// What a session may want to know about its connection, for
// pg_stat_activity and pg_stat_database. Both interfaces are optional.

// ClientAddressed is implemented by a Session that records where its
// client connects from: the IP address and TCP port, or "" and -1 for a
// Unix-domain socket (as pg_stat_activity shows them). It is called once,
// right after Engine.Open.
type ClientAddressed interface {
	SetClientAddr(addr string, port int32)
}

// EndReason is how a connection ended (pg_stat_database's sessions_*).
type EndReason int

const (
	EndNormal    EndReason = iota // the client sent Terminate
	EndAbandoned                  // the client went away without Terminate
	EndFatal                      // a FATAL error ended the session
	EndKilled                     // terminated by shutdown
)

// EndReasoned is implemented by a Session that counts how sessions end;
// it is called just before Close.
type EndReasoned interface {
	SetEndReason(EndReason)
}

// clientAddr is the connection's origin as ClientAddressed takes it.
func (c *conn) clientAddr() (string, int32) {
	if c.port == "" {
		return "", -1
	}
	port, _ := strconv.Atoi(c.port)
	return c.host, int32(port)
}

// endReasonOf classifies a failed read of the client's next message.
func endReasonOf(err error, terminating bool) EndReason {
	var pe *protoError
	switch {
	case terminating:
		return EndKilled
	case errors.As(err, &pe):
		return EndFatal
	}
	return EndAbandoned
}
