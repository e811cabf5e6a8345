package pgwire

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/scram"
)

// Authentication methods of HostAuthenticator's rules.
const (
	MethodTrust  = "trust"
	MethodReject = "reject"
	MethodSCRAM  = "scram-sha-256"
)

// PasswordSource gives the stored SCRAM-SHA-256 verifier of a role: ""
// when the role does not exist, has no password, or its password has
// expired (authentication then fails the same way for all three).
type PasswordSource interface {
	RoleVerifier(user string) (string, error)
}

// HostAuthenticator chooses the method by the client's address, a
// simplified pg_hba.conf: Loopback applies to 127.0.0.0/8, ::1 and Unix
// sockets, Remote to every other address.
type HostAuthenticator struct {
	Loopback  string // trust | scram-sha-256 | reject
	Remote    string // trust | scram-sha-256 | reject
	Passwords PasswordSource
}

// IsLoopback reports whether addr is a Unix socket or a loopback address.
func IsLoopback(addr net.Addr) bool {
	switch a := addr.(type) {
	case *net.UnixAddr:
		return true
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case nil:
		return true
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Authenticate implements Authenticator.
func (h *HostAuthenticator) Authenticate(ctx context.Context, ac AuthConn, user, database string) error {
	method := h.Remote
	if IsLoopback(ac.RemoteAddr()) {
		method = h.Loopback
	}
	switch method {
	case MethodTrust:
		return nil
	case MethodSCRAM:
		return h.scram(ac, user)
	default:
		host := "[local]"
		if a, ok := ac.RemoteAddr().(*net.TCPAddr); ok {
			host = a.IP.String()
		}
		return pgerr.Errorf(pgerr.InvalidAuthorizationSpec,
			"pg_hba.conf rejects connection for host \"%s\", user \"%s\", database \"%s\", no encryption", host, user, database)
	}
}

func passwordFailed(user string) error {
	return pgerr.Errorf(pgerr.InvalidPassword, "password authentication failed for user \"%s\"", user)
}

func (h *HostAuthenticator) scram(ac AuthConn, user string) error {
	verifier := ""
	if h.Passwords != nil {
		v, err := h.Passwords.RoleVerifier(user)
		if err != nil {
			return err
		}
		verifier = v
	}
	x, err := scram.NewExchange(verifier, "")
	if err != nil {
		return err
	}
	if err := ac.Send(&pgproto3.AuthenticationSASL{AuthMechanisms: []string{scram.Mechanism}}); err != nil {
		return err
	}
	var init pgproto3.SASLInitialResponse
	if err := ac.ReceiveResponse(&init); err != nil {
		return err
	}
	if init.AuthMechanism != scram.Mechanism {
		return pgerr.Errorf(pgerr.ProtocolViolation, "client selected an invalid SASL authentication mechanism")
	}
	first, err := x.ClientFirst(string(init.Data))
	if err != nil {
		return scramError(err, user)
	}
	if err := ac.Send(&pgproto3.AuthenticationSASLContinue{Data: []byte(first)}); err != nil {
		return err
	}
	var resp pgproto3.SASLResponse
	if err := ac.ReceiveResponse(&resp); err != nil {
		return err
	}
	final, err := x.ClientFinal(string(resp.Data))
	if err != nil {
		return scramError(err, user)
	}
	return ac.Send(&pgproto3.AuthenticationSASLFinal{Data: []byte(final)})
}

func scramError(err error, user string) error {
	var pe *scram.ProtocolError
	if errors.As(err, &pe) {
		return pgerr.Errorf(pgerr.ProtocolViolation, "%s", pe.Msg)
	}
	if errors.Is(err, scram.ErrAuthFailed) {
		return passwordFailed(user)
	}
	return fmt.Errorf("SCRAM: %w", err)
}
