// Package pgwire is tidal's PostgreSQL protocol v3 server; the thin layer
// between a client and a session.
//
// It accepts connections, runs the startup handshake (SSL/GSS refusal,
// protocol negotiation, authentication, ParameterStatus, BackendKeyData),
// routes CancelRequests, frames and decodes frontend messages with
// github.com/jackc/pgx/v5/pgproto3, and turns the results a Session writes
// into backend messages. It does not know SQL: everything about statements,
// transactions and catalogs is behind the Engine and Session interfaces,
// which the session package implements.
package pgwire

import (
	"context"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Engine opens sessions for accepted connections.
type Engine interface {
	// Open validates the startup parameters (user, database, options,
	// application_name, client_encoding, DateStyle …) and returns a new
	// session, or a *pgerr.Error (e.g. 3D000 `database "x" does not exist`,
	// 28000 `role "x" does not exist`, 53300 `sorry, too many clients
	// already`) that is sent as a FATAL ErrorResponse.
	Open(startup map[string]string, cancel CancelKey) (Session, error)
	// Cancel asks the session with that key to cancel its running statement
	// (a CancelRequest arrived). Unknown keys are ignored.
	Cancel(key CancelKey)
	// ServerParams lists the ParameterStatus messages to send after
	// authentication (server_version, server_encoding, client_encoding,
	// DateStyle, IntervalStyle, TimeZone, integer_datetimes,
	// standard_conforming_strings, is_superuser, session_authorization,
	// application_name, default_transaction_read_only, in_hot_standby), in a
	// stable order.
	ServerParams(s Session) [][2]string
}

// CancelKey identifies a backend in BackendKeyData and CancelRequest.
type CancelKey struct {
	PID    uint32
	Secret uint32
}

// Session is one backend.
type Session interface {
	// SimpleQuery runs every statement of a Query message in order, writing
	// results to w. It returns the first error; the statements after a
	// failed one are not run (the session handles transaction-block abort
	// state itself).
	SimpleQuery(ctx context.Context, sql string, w ResultWriter) error
	// TxStatus is the ReadyForQuery status: 'I' idle, 'T' in a transaction
	// block, 'E' in a failed block.
	TxStatus() byte
	// Close ends the session (connection closed or terminated); it rolls
	// back any open transaction.
	Close()
}

// ResultWriter receives one statement's results at a time.
//
// Its methods return an error once the connection is broken; the session
// should then stop and return that error from SimpleQuery.
type ResultWriter interface {
	RowDescription(fields []FieldDesc) error
	DataRow(values [][]byte) error    // text format; nil element = NULL
	CommandComplete(tag string) error // e.g. "SELECT 3", "INSERT 0 500000", "UPDATE 500", "CREATE TABLE"
	EmptyQuery() error                // the query string was empty or only comments/semicolons
	Notice(n *pgerr.Error) error      // NoticeResponse (severity NOTICE/INFO/WARNING/LOG) sent right away, in order with rows
}

// FieldDesc describes one result column (a RowDescription field).
type FieldDesc struct {
	Name       string
	TableOID   uint32
	ColumnAttr uint16
	TypeOID    uint32
	TypeLen    int16
	TypeMod    int32
	Format     int16
}
