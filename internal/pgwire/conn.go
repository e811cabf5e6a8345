package pgwire

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/tidal-db/tidal/internal/interrupt"
	"github.com/tidal-db/tidal/internal/pgerr"
)

// Startup packet request codes (the "protocol version" word).
const (
	cancelRequestCode = 80877102 // 1234.5678
	sslRequestCode    = 80877103 // 1234.5679
	gssEncRequestCode = 80877104 // 1234.5680

	maxStartupPacketLen = 10000 // MAX_STARTUP_PACKET_LENGTH
	maxAuthResponseLen  = 65535 // PG_MAX_AUTH_TOKEN_LENGTH
)

type connState int

const (
	stateStartup connState = iota
	stateIdle              // waiting for (or reading) the next message
	stateBusy              // processing a message
	stateClosed
)

// protoError is a protocol violation found while reading; it is sent to the
// client as a FATAL ErrorResponse and the connection is closed.
type protoError struct{ e *pgerr.Error }

func (p *protoError) Error() string { return p.e.Message }

func protoErrorf(format string, args ...any) error {
	return &protoError{pgerr.Errorf(pgerr.ProtocolViolation, format, args...)}
}

// conn is one client connection and its backend.
type conn struct {
	srv *Server
	nc  net.Conn
	cr  *connReader
	br  *bufio.Reader

	wbuf    []byte
	werr    error // sticky write error; the connection is dead
	rbuf    []byte
	dataRow pgproto3.DataRow

	ctx    context.Context // cancelled when the connection ends
	cancel context.CancelFunc

	key        CancelKey
	host, port string
	start      time.Time
	startup    map[string]string
	user, db   string
	sess       Session

	ignoreTillSync bool  // an extended-protocol error happened; skip until Sync
	rerr           error // a read failed during COPY FROM STDIN; the connection ends
	inAuth         bool  // an Authenticator is reading a response

	mu        sync.Mutex
	state     connState
	terminate bool // Shutdown asked this connection to end

	// wmu is held by the message loop while it handles a message (and
	// whenever it writes after the handshake), and by the notification
	// goroutine while it writes (notify.go). Output state (wbuf, werr,
	// lastStatus, inBatch) is touched only with it held.
	wmu        sync.Mutex
	lastStatus byte // of the last ReadyForQuery
	endReason  EndReason
	inBatch    bool // an extended-protocol message came after it

	// reported holds the ParameterStatus values the client has seen, so
	// that a SET of a reported parameter (TimeZone, application_name, …)
	// is announced before the next ReadyForQuery, as PostgreSQL does.
	reported map[string]string
	// paramsGen is the session's ParamsGeneration when reported was last
	// brought up to date (paramsGenKnown: it was).
	paramsGen      uint64
	paramsGenKnown bool
}

func newConn(s *Server, nc net.Conn) *conn {
	c := &conn{srv: s, nc: nc, start: time.Now()}
	c.cr = newConnReader(nc)
	c.br = bufio.NewReaderSize(c.cr, 8192)
	c.ctx, c.cancel = context.WithCancel(context.Background())
	if a, ok := s.eng.(PIDAllocator); ok {
		c.key.PID = a.NewBackendPID()
	} else {
		c.key.PID = nextPID.Add(1)
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	c.key.Secret = binary.BigEndian.Uint32(b[:])
	switch a := nc.RemoteAddr().(type) {
	case *net.TCPAddr:
		c.host = a.IP.String()
		c.port = fmt.Sprint(a.Port)
	default:
		c.host = "[local]"
	}
	// The whole startup handshake must finish within AuthTimeout.
	_ = nc.SetDeadline(time.Now().Add(s.cfg.AuthTimeout))
	return c
}

func (c *conn) logf(level, format string, args ...any) {
	c.srv.logger.Printf("[%d] %s:  %s", c.key.PID, level, fmt.Sprintf(format, args...))
}

// serve runs the connection until it ends.
func (c *conn) serve() {
	defer func() {
		if r := recover(); r != nil {
			c.cr.abortPendingRead()
			if h := c.srv.panicHook.Load(); h != nil {
				(*h)(r)
			}
			c.logf("LOG", "server process (PID %d) panicked: %v\n%s", c.key.PID, r, debug.Stack())
			c.wmu.Lock()
			c.sendFatal(pgerr.Errorf(pgerr.InternalError, "internal error: %v", r))
			c.wmu.Unlock()
		}
		c.close()
	}()
	if c.port != "" {
		c.logf("LOG", "connection received: host=%s port=%s", c.host, c.port)
	} else {
		c.logf("LOG", "connection received: host=%s", c.host)
	}
	if !c.handshake() {
		return
	}
	if n, ok := c.sess.(Notifier); ok {
		go c.watchNotifications(n.NotificationWake())
	}
	c.loop()
}

func (c *conn) close() {
	c.mu.Lock()
	c.state = stateClosed
	c.mu.Unlock()
	c.cancel()
	if c.sess != nil {
		if er, ok := c.sess.(EndReasoned); ok {
			er.SetEndReason(c.endReason)
		}
		c.sess.Close()
		d := time.Since(c.start)
		ms := d.Milliseconds()
		hostPort := "host=" + c.host
		if c.port != "" {
			hostPort += " port=" + c.port
		}
		c.logf("LOG", "disconnection: session time: %d:%02d:%02d.%03d user=%s database=%s %s",
			ms/3600000, ms/60000%60, ms/1000%60, ms%1000, c.user, c.db, hostPort)
	}
	_ = c.nc.Close()
}

// requestTerminate is called by Shutdown. An idle connection is woken from
// its read and terminated at once; a busy one after its current message.
func (c *conn) requestTerminate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.terminate = true
	if c.state == stateStartup || c.state == stateIdle {
		_ = c.nc.SetReadDeadline(aLongTimeAgo)
	}
}

func (c *conn) forceClose() {
	c.cancel()
	_ = c.nc.Close()
}

// setState moves to st unless termination was requested; it reports whether
// the connection may go on.
func (c *conn) setState(st connState) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.terminate {
		return false
	}
	c.state = st
	return true
}

func (c *conn) terminating() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.terminate
}

func adminShutdownError() *pgerr.Error {
	return &pgerr.Error{Severity: pgerr.SevFatal, Code: pgerr.AdminShutdown,
		Message: "terminating connection due to administrator command"}
}

// ---------------------------------------------------------------------------
// Output

// send encodes msg into the write buffer, flushing it when it grows past
// flushThreshold so that large results stream.
func (c *conn) send(msg pgproto3.BackendMessage) error {
	if c.werr != nil {
		return c.werr
	}
	b, err := msg.Encode(c.wbuf)
	if err != nil {
		return pgerr.Errorf(pgerr.ProgramLimitExceeded, "could not encode %T: %v", msg, err)
	}
	c.wbuf = b
	if len(c.wbuf) >= flushThreshold {
		return c.flush()
	}
	return nil
}

func (c *conn) flush() error {
	if c.werr != nil {
		return c.werr
	}
	if len(c.wbuf) == 0 {
		return nil
	}
	_, err := c.nc.Write(c.wbuf)
	if cap(c.wbuf) > 4*flushThreshold {
		c.wbuf = nil
	} else {
		c.wbuf = c.wbuf[:0]
	}
	if err != nil {
		c.werr = err
	}
	return err
}

func errorResponse(e *pgerr.Error) *pgproto3.ErrorResponse {
	return &pgproto3.ErrorResponse{
		Severity:            e.Severity,
		SeverityUnlocalized: e.Severity,
		Code:                e.Code,
		Message:             e.Message,
		Detail:              e.Detail,
		Hint:                e.Hint,
		Position:            e.Position,
		Where:               e.Where,
		SchemaName:          e.SchemaName,
		TableName:           e.TableName,
		ColumnName:          e.ColumnName,
		DataTypeName:        e.DataTypeName,
		ConstraintName:      e.ConstraintName,
	}
}

// sendError queues an ErrorResponse with severity ERROR and flushes it
// (PostgreSQL flushes errors at once).
func (c *conn) sendError(e *pgerr.Error) {
	ee := *e
	if ee.Code == "" {
		ee.Code = pgerr.InternalError
	}
	ee.Severity = pgerr.SevError
	_ = c.send(errorResponse(&ee))
	_ = c.flush()
}

// sendFatal sends a FATAL ErrorResponse, flushes and logs it. The caller
// then closes the connection.
func (c *conn) sendFatal(e *pgerr.Error) {
	ee := *e
	if ee.Code == "" {
		ee.Code = pgerr.InternalError
	}
	if ee.Severity != pgerr.SevPanic {
		ee.Severity = pgerr.SevFatal
	}
	c.logf(ee.Severity, "%s", ee.Message)
	if c.werr != nil {
		return
	}
	_ = c.nc.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_ = c.send(errorResponse(&ee))
	_ = c.flush()
}

func (c *conn) readyForQuery() {
	st := byte('I')
	if c.sess != nil {
		st = c.sess.TxStatus()
		c.reportChangedParams()
		if st == 'I' {
			c.sendNotifications()
		}
	}
	c.lastStatus, c.inBatch = st, false
	_ = c.send(&pgproto3.ReadyForQuery{TxStatus: st})
}

// ---------------------------------------------------------------------------
// Startup

// readStartupPacket reads one length-prefixed startup packet and returns its
// body (starting with the request code). A nil body with nil error means the
// connection should be closed silently.
func (c *conn) readStartupPacket() ([]byte, error) {
	var lb [4]byte
	if _, err := io.ReadFull(c.br, lb[:]); err != nil {
		return nil, err
	}
	n := int64(int32(binary.BigEndian.Uint32(lb[:]))) - 4
	if n < 4 || n > maxStartupPacketLen {
		return nil, errors.New("invalid length of startup packet")
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(c.br, body); err != nil {
		return nil, errors.New("incomplete startup packet")
	}
	return body, nil
}

// decodeStartupPacket decodes a startup packet body with pgproto3.
func decodeStartupPacket(body []byte) (pgproto3.FrontendMessage, error) {
	pkt := make([]byte, 4+len(body))
	binary.BigEndian.PutUint32(pkt, uint32(len(pkt)))
	copy(pkt[4:], body)
	be := pgproto3.NewBackend(bytes.NewReader(pkt), io.Discard)
	return be.ReceiveStartupMessage()
}

// handshake runs the startup phase up to the first ReadyForQuery. It reports
// whether the connection goes on to the message loop.
func (c *conn) handshake() bool {
	var sslDone, gssDone bool
	var body []byte
	for {
		var err error
		body, err = c.readStartupPacket()
		if err != nil {
			if c.terminating() {
				c.sendFatal(adminShutdownError())
			} else if !errors.Is(err, io.EOF) {
				c.logf("LOG", "%v", err)
			}
			return false
		}
		code := binary.BigEndian.Uint32(body)
		switch {
		case code == sslRequestCode && !sslDone:
			// No SSL support: answer 'N'; the client goes on in plaintext.
			sslDone = true
			if _, err := c.nc.Write([]byte{'N'}); err != nil {
				return false
			}
			continue
		case code == gssEncRequestCode && !gssDone:
			gssDone = true
			if _, err := c.nc.Write([]byte{'N'}); err != nil {
				return false
			}
			continue
		case code == cancelRequestCode:
			c.handleCancel(body)
			return false
		case code>>16 == 3:
			// Protocol 3.x: handled below.
		default:
			// PostgreSQL reports this as feature_not_supported.
			c.sendFatal(pgerr.Errorf(pgerr.FeatureNotSupported,
				"unsupported frontend protocol %d.%d: server supports 3.0 to 3.0", code>>16, code&0xffff))
			return false
		}
		break
	}

	// Decode as 3.0 whatever the minor version; newer minors are negotiated
	// down below.
	minor := binary.BigEndian.Uint32(body) & 0xffff
	binary.BigEndian.PutUint32(body, pgproto3.ProtocolVersion30)
	params := map[string]string{}
	if !(len(body) == 5 && body[4] == 0) { // pgproto3 rejects an empty list
		msg, err := decodeStartupPacket(body)
		sm, ok := msg.(*pgproto3.StartupMessage)
		if err != nil || !ok {
			c.sendFatal(pgerr.Errorf(pgerr.ProtocolViolation,
				"invalid startup packet layout: expected terminator as last byte"))
			return false
		}
		params = sm.Parameters
	}

	var unrecognized []string
	for k := range params {
		if strings.HasPrefix(k, "_pq_.") {
			unrecognized = append(unrecognized, k)
			delete(params, k)
		}
	}
	if minor > 0 || len(unrecognized) > 0 {
		sort.Strings(unrecognized)
		_ = c.send(&pgproto3.NegotiateProtocolVersion{NewestMinorProtocol: 0, UnrecognizedOptions: unrecognized})
	}

	c.user = params["user"]
	if c.user == "" {
		c.sendFatal(&pgerr.Error{Code: pgerr.InvalidAuthorizationSpec,
			Message: "no PostgreSQL user name specified in startup packet"})
		return false
	}
	if params["database"] == "" {
		params["database"] = c.user
	}
	c.db = params["database"]
	c.startup = params

	if err := c.srv.auth.Authenticate(c.ctx, authConn{c}, c.user, c.db); err != nil {
		c.failStartup(err)
		return false
	}
	if err := c.send(&pgproto3.AuthenticationOk{}); err != nil {
		return false
	}
	if app := params["application_name"]; app != "" {
		c.logf("LOG", "connection authorized: user=%s database=%s application_name=%s", c.user, c.db, app)
	} else {
		c.logf("LOG", "connection authorized: user=%s database=%s", c.user, c.db)
	}

	sess, err := c.srv.eng.Open(params, c.key)
	if err != nil {
		c.failStartup(err)
		return false
	}
	c.sess = sess
	if ca, ok := sess.(ClientAddressed); ok {
		ca.SetClientAddr(c.clientAddr())
	}
	if t, ok := sess.(Terminable); ok {
		t.OnTerminate(c.requestTerminate)
	}
	c.reported = map[string]string{}
	for _, p := range c.srv.eng.ServerParams(sess) {
		_ = c.send(&pgproto3.ParameterStatus{Name: p[0], Value: p[1]})
		c.reported[p[0]] = p[1]
	}
	var secret [4]byte
	binary.BigEndian.PutUint32(secret[:], c.key.Secret)
	_ = c.send(&pgproto3.BackendKeyData{ProcessID: c.key.PID, SecretKey: secret[:]})
	c.readyForQuery()
	if c.flush() != nil {
		return false
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.terminate {
		c.sendFatal(adminShutdownError())
		return false
	}
	_ = c.nc.SetDeadline(time.Time{})
	c.state = stateIdle
	return true
}

// failStartup reports an error from authentication or Engine.Open.
func (c *conn) failStartup(err error) {
	var pe *protoError
	switch {
	case c.terminating():
		c.sendFatal(adminShutdownError())
	case errors.As(err, &pe):
		c.sendFatal(pe.e)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		// The client went away mid-handshake.
	case errors.Is(err, os.ErrDeadlineExceeded):
		c.logf("FATAL", "canceling authentication due to timeout")
	default:
		c.sendFatal(pgerr.From(err))
	}
}

func (c *conn) handleCancel(body []byte) {
	msg, err := decodeStartupPacket(body)
	if err != nil {
		return
	}
	cr, ok := msg.(*pgproto3.CancelRequest)
	if !ok || len(cr.SecretKey) != 4 {
		return // 3.2-style long keys are never issued by this server
	}
	c.srv.eng.Cancel(CancelKey{PID: cr.ProcessID, Secret: binary.BigEndian.Uint32(cr.SecretKey)})
}

// authConn gives an Authenticator access to the connection.
type authConn struct{ c *conn }

func (a authConn) Send(msg pgproto3.BackendMessage) error {
	if err := a.c.send(msg); err != nil {
		return err
	}
	return a.c.flush()
}

func (a authConn) ReceiveResponse(dst pgproto3.FrontendMessage) error {
	if err := a.c.flush(); err != nil {
		return err
	}
	a.c.inAuth = true
	typ, n, err := a.c.readHeader()
	a.c.inAuth = false
	if err != nil {
		return err
	}
	if typ != 'p' {
		return protoErrorf("expected password response, got message type %d", typ)
	}
	body, err := a.c.readBody(n)
	if err != nil {
		return err
	}
	if err := dst.Decode(body); err != nil {
		return protoErrorf("malformed authentication response: %v", err)
	}
	return nil
}

func (a authConn) RemoteAddr() net.Addr       { return a.c.nc.RemoteAddr() }
func (a authConn) Startup() map[string]string { return a.c.startup }

// ---------------------------------------------------------------------------
// Message loop

// messageLimit is the largest body accepted for a message type; zero means
// the type is not a valid frontend message.
func (c *conn) messageLimit(typ byte) int {
	switch typ {
	case 'Q', 'P', 'B', 'F', 'd', 'c', 'f':
		return c.srv.cfg.MaxMessageSize
	case 'p':
		if c.inAuth {
			return maxAuthResponseLen
		}
	case 'E', 'C', 'D', 'H', 'S', 'X':
		return smallMessageLimit
	}
	return 0
}

// readHeader reads a message's type byte and length word and returns the
// body length. The type is checked before the length is read, as PostgreSQL
// does.
func (c *conn) readHeader() (byte, int, error) {
	typ, err := c.br.ReadByte()
	if err != nil {
		return 0, 0, err
	}
	limit := c.messageLimit(typ)
	if limit == 0 {
		return typ, 0, protoErrorf("invalid frontend message type %d", typ)
	}
	var lb [4]byte
	if _, err := io.ReadFull(c.br, lb[:]); err != nil {
		return typ, 0, eofUnexpected(err)
	}
	n := int64(int32(binary.BigEndian.Uint32(lb[:])))
	if n < 4 {
		return typ, 0, protoErrorf("invalid message length")
	}
	if n-4 > int64(limit) {
		e := pgerr.Errorf(pgerr.ProtocolViolation, "invalid message length").
			WithDetail("Message of type %q has a body of %d bytes; the limit is %d.", typ, n-4, limit)
		return typ, 0, &protoError{e}
	}
	return typ, int(n - 4), nil
}

// readBody reads n bytes. The buffer grows as data arrives, so a bogus
// length cannot make the server allocate it up front.
func (c *conn) readBody(n int) ([]byte, error) {
	if n <= cap(c.rbuf) {
		b := c.rbuf[:n]
		if _, err := io.ReadFull(c.br, b); err != nil {
			return nil, eofUnexpected(err)
		}
		return b, nil
	}
	b := c.rbuf[:0]
	for len(b) < n {
		chunk := min(n-len(b), max(len(b), 64<<10))
		b = slices.Grow(b, chunk)
		m, err := io.ReadFull(c.br, b[len(b):len(b)+chunk])
		b = b[:len(b)+m]
		if err != nil {
			return nil, eofUnexpected(err)
		}
	}
	if cap(b) <= 1<<20 {
		c.rbuf = b
	}
	return b, nil
}

func eofUnexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// loop reads and answers messages until the connection ends.
func (c *conn) loop() {
	for {
		if !c.setState(stateIdle) {
			c.endReason = EndKilled
			c.sendFatalLocked(adminShutdownError())
			return
		}
		idle := c.armIdleTimeout()
		typ, n, err := c.readHeader()
		if idle && c.disarmIdleTimeout(err) {
			c.endReason = EndFatal
			c.sendFatalLocked(idleInTransactionError())
			return
		}
		if err == nil {
			err = c.dispatch(typ, n)
		}
		if err == errTerminate {
			if typ != 'X' {
				c.endReason = EndFatal
			}
			return
		}
		if err != nil {
			c.endReason = endReasonOf(err, c.terminating())
			c.wmu.Lock()
			c.readFailed(err)
			c.wmu.Unlock()
			return
		}
	}
}

var errTerminate = errors.New("terminate")

// readFailed handles an error from reading the client: a protocol violation,
// EOF, a broken connection or an interruption by Shutdown.
func (c *conn) readFailed(err error) {
	var pe *protoError
	switch {
	case c.terminating():
		c.sendFatal(adminShutdownError())
	case errors.As(err, &pe):
		c.sendFatal(pe.e)
	case errors.Is(err, io.EOF):
		if c.sess != nil && c.sess.TxStatus() != 'I' {
			c.logf("LOG", "unexpected EOF on client connection with an open transaction")
		}
	case errors.Is(err, io.ErrUnexpectedEOF):
		c.logf("LOG", "incomplete message from client")
	default:
		c.logf("LOG", "could not receive data from client: %v", err)
	}
}

// dispatch handles one message whose header has been read.
func (c *conn) dispatch(typ byte, n int) (err error) {
	// After an extended-protocol error everything up to Sync is skipped;
	// CopyData/CopyDone/CopyFail outside COPY are ignored, as PostgreSQL
	// does (a failed COPY leaves the client still sending them).
	skip := c.ignoreTillSync && typ != 'S' && typ != 'X'
	if skip || typ == 'd' || typ == 'c' || typ == 'f' {
		if _, err := c.br.Discard(n); err != nil {
			return eofUnexpected(err)
		}
		return nil
	}
	body, err := c.readBody(n)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if !c.setState(stateBusy) {
		c.sendFatal(adminShutdownError())
		return errTerminate
	}
	// Back to idle before c.wmu is released, so that the notification
	// goroutine, once it has the lock, sees the state the loop waits in.
	defer c.setState(stateIdle)
	defer func() {
		if err == nil && c.werr != nil {
			err = errTerminate // the connection is broken or ended with FATAL
		}
	}()
	switch typ {
	case 'P', 'B', 'D', 'E', 'C', 'H':
		c.inBatch = true
	}
	es, ext := c.sess.(ExtendedSession)
	switch typ {
	case 'Q':
		c.simpleQuery(body)
		if c.rerr != nil {
			return c.rerr
		}
	case 'X':
		return errTerminate
	case 'S':
		var m pgproto3.Sync
		c.ignoreTillSync = false
		if err := m.Decode(body); err != nil {
			c.sendError(pgerr.Errorf(pgerr.ProtocolViolation, "invalid message format"))
		}
		if ext {
			c.sync(es)
			if c.werr != nil {
				return nil
			}
		}
		c.readyForQuery()
		_ = c.flush()
	case 'H':
		var m pgproto3.Flush
		if err := m.Decode(body); err != nil {
			c.sendError(pgerr.Errorf(pgerr.ProtocolViolation, "invalid message format"))
		}
		_ = c.flush()
	case 'F':
		// Fast-path function calls are answered like a simple query.
		c.sendError(pgerr.Errorf(pgerr.FeatureNotSupported, "fast-path function calls are not supported yet"))
		c.readyForQuery()
		_ = c.flush()
	case 'P', 'B', 'D', 'E', 'C':
		if ext {
			if err := c.extended(es, typ, body); err != nil {
				return err
			}
			break
		}
		c.sendError(pgerr.Errorf(pgerr.FeatureNotSupported, "extended query protocol is not supported yet"))
		c.ignoreTillSync = true
	}
	if cap(c.rbuf) > 1<<20 {
		c.rbuf = nil
	}
	return nil
}

// sendFatalLocked is sendFatal from the message loop between messages.
func (c *conn) sendFatalLocked(e *pgerr.Error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.sendFatal(e)
}

func (c *conn) simpleQuery(body []byte) {
	var q pgproto3.Query
	if err := q.Decode(body); err != nil {
		c.sendError(pgerr.Errorf(pgerr.ProtocolViolation, "invalid message format"))
		c.readyForQuery()
		_ = c.flush()
		return
	}
	ctx, cancel := context.WithCancelCause(c.ctx)
	defer cancel(nil)
	// Watch for the client going away while the statement runs (unless it
	// already pipelined more input, which a one-byte read cannot see past).
	if c.br.Buffered() == 0 {
		c.cr.startBackgroundRead(func() { cancel(interrupt.ClientGone) })
	}
	err := c.sess.SimpleQuery(ctx, q.String, resultWriter{c})
	c.cr.abortPendingRead()
	if c.werr != nil || c.rerr != nil {
		return
	}
	if err != nil {
		pe := pgerr.From(err)
		if pe.Severity == pgerr.SevFatal || pe.Severity == pgerr.SevPanic {
			c.sendFatal(pe)
			c.werr = errors.New("session ended with FATAL")
			return
		}
		c.sendError(pe)
	}
	c.readyForQuery()
	_ = c.flush()
}

// resultWriter is the ResultWriter given to Session.SimpleQuery.
type resultWriter struct{ c *conn }

func (w resultWriter) RowDescription(fields []FieldDesc) error {
	fd := make([]pgproto3.FieldDescription, len(fields))
	for i, f := range fields {
		fd[i] = pgproto3.FieldDescription{
			Name:                 []byte(f.Name),
			TableOID:             f.TableOID,
			TableAttributeNumber: f.ColumnAttr,
			DataTypeOID:          f.TypeOID,
			DataTypeSize:         f.TypeLen,
			TypeModifier:         f.TypeMod,
			Format:               f.Format,
		}
	}
	return w.c.send(&pgproto3.RowDescription{Fields: fd})
}

func (w resultWriter) DataRow(values [][]byte) error {
	w.c.dataRow.Values = values
	err := w.c.send(&w.c.dataRow)
	w.c.dataRow.Values = nil
	return err
}

func (w resultWriter) CommandComplete(tag string) error {
	return w.c.send(&pgproto3.CommandComplete{CommandTag: []byte(tag)})
}

func (w resultWriter) EmptyQuery() error {
	return w.c.send(&pgproto3.EmptyQueryResponse{})
}

func (w resultWriter) Notice(n *pgerr.Error) error {
	if n == nil {
		return nil
	}
	sev := n.Severity
	if sev == "" {
		sev = pgerr.SevNotice
	}
	if f, ok := w.c.sess.(NoticeFilter); ok && !f.SendsNotice(sev) {
		return nil
	}
	code := n.Code
	if code == "" {
		code = pgerr.SuccessfulCompletion
	}
	msg := pgproto3.NoticeResponse{
		Severity:            sev,
		SeverityUnlocalized: sev,
		Code:                code,
		Message:             n.Message,
		Detail:              n.Detail,
		Hint:                n.Hint,
		Position:            n.Position,
		SchemaName:          n.SchemaName,
		TableName:           n.TableName,
		ColumnName:          n.ColumnName,
		DataTypeName:        n.DataTypeName,
		ConstraintName:      n.ConstraintName,
	}
	if err := w.c.send(&msg); err != nil {
		return err
	}
	return w.c.flush()
}

// reportChangedParams sends ParameterStatus for every reported parameter
// whose value changed since the client last heard it.
func (c *conn) reportChangedParams() {
	if c.reported == nil {
		return
	}
	if pv, ok := c.sess.(ParamsVersioned); ok {
		g := pv.ParamsGeneration()
		if c.paramsGenKnown && g == c.paramsGen {
			return
		}
		c.paramsGen, c.paramsGenKnown = g, true
	}
	for _, p := range c.srv.eng.ServerParams(c.sess) {
		if old, ok := c.reported[p[0]]; !ok || old != p[1] {
			_ = c.send(&pgproto3.ParameterStatus{Name: p[0], Value: p[1]})
			c.reported[p[0]] = p[1]
		}
	}
}
