package pgwire

import (
	"context"
	"net"

	"github.com/jackc/pgx/v5/pgproto3"
)

// Authenticator checks a client's identity during startup, after the startup
// packet and before the session is opened. It runs the challenge/response
// exchange itself through ac (e.g. AuthenticationSASL, SASLInitialResponse,
// AuthenticationSASLContinue, SASLResponse, AuthenticationSASLFinal) and
// returns nil to accept the client; pgwire then sends AuthenticationOk.
// A returned error is sent to the client as a FATAL ErrorResponse
// (e.g. 28P01 `password authentication failed for user "x"`).
type Authenticator interface {
	Authenticate(ctx context.Context, ac AuthConn, user, database string) error
}

// AuthConn is the connection as seen by an Authenticator.
type AuthConn interface {
	// Send writes msg to the client and flushes it.
	Send(msg pgproto3.BackendMessage) error
	// ReceiveResponse reads the next frontend message, which must be an
	// authentication response ('p': PasswordMessage, SASLInitialResponse,
	// SASLResponse, GSSResponse), and decodes it into dst. Any other message
	// type is a protocol violation (08P01 error).
	ReceiveResponse(dst pgproto3.FrontendMessage) error
	// RemoteAddr is the client's address (for pg_hba-style rules).
	RemoteAddr() net.Addr
	// Startup is the startup packet's parameters.
	Startup() map[string]string
}

// TrustAuthenticator accepts every client without a challenge, like
// PostgreSQL's "trust" method. It is used when Config.Authenticator is nil.
type TrustAuthenticator struct{}

// Authenticate implements Authenticator.
func (TrustAuthenticator) Authenticate(context.Context, AuthConn, string, string) error {
	return nil
}
