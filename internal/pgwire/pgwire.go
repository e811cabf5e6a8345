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
	"io"

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

// ParamsVersioned is implemented by a Session whose reported parameters
// can only change when ParamsGeneration does: the connection then skips
// re-reading them after a command that changed no setting.
type ParamsVersioned interface {
	ParamsGeneration() uint64
}

// PIDAllocator is implemented by an Engine that numbers its backends
// itself, so that the process ID a client gets in BackendKeyData is the
// one SQL reports (pg_backend_pid) and signals (pg_cancel_backend).
type PIDAllocator interface {
	NewBackendPID() uint32
}

// Terminable is implemented by a Session that another backend can end
// (pg_terminate_backend): pgwire hands it a function that ends the
// connection as Shutdown does — at once if it is idle, after the current
// message otherwise (the session interrupts its own statement with FATAL
// 57P01).
type Terminable interface {
	OnTerminate(terminate func())
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

// NoticeFilter is implemented by a Session whose settings decide which
// notices reach the client (client_min_messages); pgwire drops the others.
type NoticeFilter interface {
	SendsNotice(severity string) bool
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

// ExtendedSession is a Session that also speaks the extended query
// protocol. pgwire decodes the messages and frames the answers; the session
// owns prepared statements, portals and the implicit transaction of a
// batch. For a Session that does not implement it, Parse, Bind, Describe,
// Execute and Close are answered with ERROR 0A000.
//
// An error returned by any method is sent as an ErrorResponse and pgwire
// then discards messages until Sync (the session has already aborted what
// the error aborts: the implicit transaction, or the explicit block, which
// becomes failed).
type ExtendedSession interface {
	Session
	// Parse creates a prepared statement ("" = the unnamed one, replaced by
	// each Parse). paramOIDs are the parameter types the client declared;
	// 0 (or a missing entry) means "infer from context".
	Parse(ctx context.Context, name, query string, paramOIDs []uint32) error
	// Bind creates a portal ("" = the unnamed one) from a prepared
	// statement and parameter values (nil = NULL). Format codes follow the
	// protocol: none = all text, one = for all, else one per value/column.
	// The byte slices are only valid during the call.
	Bind(ctx context.Context, portal, stmt string, paramFormats []int16, params [][]byte, resultFormats []int16) error
	// DescribeStatement returns the statement's parameter type OIDs and
	// result columns (nil = NoData; all in text format).
	DescribeStatement(name string) (paramOIDs []uint32, fields []FieldDesc, err error)
	// DescribePortal returns the portal's result columns (nil = NoData),
	// with the format codes given at Bind.
	DescribePortal(name string) ([]FieldDesc, error)
	// Execute runs a portal, sending at most maxRows DataRows (0 = all)
	// then CommandComplete (or EmptyQuery); it returns suspended=true
	// instead when rows remain (pgwire sends PortalSuspended; the next
	// Execute continues). It must not call RowDescription.
	Execute(ctx context.Context, portal string, maxRows int, w ResultWriter) (suspended bool, err error)
	// CloseStatement and ClosePortal drop a prepared statement or portal;
	// closing one that does not exist is not an error.
	CloseStatement(name string) error
	ClosePortal(name string) error
	// Sync ends a batch: outside an explicit transaction block it commits
	// the implicit transaction that the batch's messages ran in. An error
	// is sent before ReadyForQuery.
	Sync() error
}

// CopyWriter is implemented by the ResultWriter pgwire passes to
// SimpleQuery and Execute; the session uses it for COPY FROM STDIN and
// COPY TO STDOUT. Format 0 is text (also csv), 1 is binary.
type CopyWriter interface {
	// CopyIn sends CopyInResponse and returns the data the client sends:
	// the CopyData payloads in order; Read returns io.EOF after CopyDone
	// and a *pgerr.Error 57014 "COPY from stdin failed: …" after CopyFail.
	// Flush and Sync are ignored meanwhile; any other message is a 08P01
	// error. The reader is only valid until SimpleQuery/Execute returns; the
	// session may stop reading early (after an error): pgwire then ignores
	// the rest of the copy data, as PostgreSQL does.
	CopyIn(format int8, ncols int) (io.Reader, error)
	// CopyOut sends CopyOutResponse; then CopyData sends one CopyData
	// message per call and CopyDone ends the stream.
	CopyOut(format int8, ncols int) error
	CopyData(p []byte) error
	CopyDone() error
}
