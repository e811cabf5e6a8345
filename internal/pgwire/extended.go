package pgwire

import (
	"context"
	"errors"
	"io"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/tidal-db/tidal/internal/interrupt"
	"github.com/tidal-db/tidal/internal/pgerr"
)

// extended handles Parse, Bind, Describe, Execute and Close for a session
// that implements ExtendedSession. Answers are buffered (PostgreSQL flushes
// them at Sync, Flush, an error, or when the buffer fills). On an error
// everything up to Sync is skipped.
func (c *conn) extended(es ExtendedSession, typ byte, body []byte) error {
	var err error
	switch typ {
	case 'P':
		var m pgproto3.Parse
		if derr := m.Decode(body); derr != nil {
			err = invalidFormat()
			break
		}
		if err = es.Parse(c.ctx, m.Name, m.Query, m.ParameterOIDs); err == nil {
			err = c.send(&pgproto3.ParseComplete{})
		}
	case 'B':
		var m pgproto3.Bind
		if derr := m.Decode(body); derr != nil {
			err = invalidFormat()
			break
		}
		if err = es.Bind(c.ctx, m.DestinationPortal, m.PreparedStatement, m.ParameterFormatCodes, m.Parameters, m.ResultFormatCodes); err == nil {
			err = c.send(&pgproto3.BindComplete{})
		}
	case 'D':
		var m pgproto3.Describe
		if derr := m.Decode(body); derr != nil || (m.ObjectType != 'S' && m.ObjectType != 'P') {
			err = invalidDescribeOrFormat(body, "DESCRIBE")
			break
		}
		var fields []FieldDesc
		if m.ObjectType == 'S' {
			var oids []uint32
			oids, fields, err = es.DescribeStatement(m.Name)
			if err == nil {
				if oids == nil {
					oids = []uint32{}
				}
				err = c.send(&pgproto3.ParameterDescription{ParameterOIDs: oids})
			}
		} else {
			fields, err = es.DescribePortal(m.Name)
		}
		if err == nil {
			if fields == nil {
				err = c.send(&pgproto3.NoData{})
			} else {
				err = resultWriter{c}.RowDescription(fields)
			}
		}
	case 'E':
		var m pgproto3.Execute
		if derr := m.Decode(body); derr != nil {
			err = invalidFormat()
			break
		}
		maxRows := int(int32(m.MaxRows))
		if maxRows < 0 {
			maxRows = 0
		}
		ctx, cancel := context.WithCancelCause(c.ctx)
		if c.br.Buffered() == 0 {
			c.cr.startBackgroundRead(func() { cancel(interrupt.ClientGone) })
		}
		var suspended bool
		suspended, err = es.Execute(ctx, m.Portal, maxRows, resultWriter{c})
		c.cr.abortPendingRead()
		cancel(nil)
		if c.rerr != nil {
			return c.rerr
		}
		if err == nil && suspended {
			err = c.send(&pgproto3.PortalSuspended{})
		}
	case 'C':
		var m pgproto3.Close
		if derr := m.Decode(body); derr != nil || (m.ObjectType != 'S' && m.ObjectType != 'P') {
			err = invalidDescribeOrFormat(body, "CLOSE")
			break
		}
		if m.ObjectType == 'S' {
			err = es.CloseStatement(m.Name)
		} else {
			err = es.ClosePortal(m.Name)
		}
		if err == nil {
			err = c.send(&pgproto3.CloseComplete{})
		}
	}
	if c.werr != nil {
		return nil // the loop sees werr and ends the connection
	}
	if err != nil {
		pe := pgerr.From(err)
		if pe.Severity == pgerr.SevFatal || pe.Severity == pgerr.SevPanic {
			c.sendFatal(pe)
			c.werr = errors.New("session ended with FATAL")
			return nil
		}
		c.sendError(pe)
		c.ignoreTillSync = true
	}
	return nil
}

func invalidFormat() error {
	return pgerr.Errorf(pgerr.ProtocolViolation, "invalid message format")
}

// invalidDescribeOrFormat reports a Describe/Close with a bad object type
// as PostgreSQL words it, anything else as a malformed message.
func invalidDescribeOrFormat(body []byte, what string) error {
	if len(body) > 0 && body[0] != 'S' && body[0] != 'P' {
		return pgerr.Errorf(pgerr.ProtocolViolation, "invalid %s message subtype %d", what, body[0])
	}
	return invalidFormat()
}

// sync answers Sync for an extended session.
func (c *conn) sync(es ExtendedSession) {
	if err := es.Sync(); err != nil {
		pe := pgerr.From(err)
		if pe.Severity == pgerr.SevFatal || pe.Severity == pgerr.SevPanic {
			c.sendFatal(pe)
			c.werr = errors.New("session ended with FATAL")
			return
		}
		c.sendError(pe)
	}
}

// ---------------------------------------------------------------------------
// COPY

func copyFormats(format int8, ncols int) (byte, []uint16) {
	codes := make([]uint16, ncols)
	for i := range codes {
		codes[i] = uint16(format)
	}
	return byte(format), codes
}

func (w resultWriter) CopyIn(format int8, ncols int) (io.Reader, error) {
	c := w.c
	f, codes := copyFormats(format, ncols)
	if err := c.send(&pgproto3.CopyInResponse{OverallFormat: f, ColumnFormatCodes: codes}); err != nil {
		return nil, err
	}
	if err := c.flush(); err != nil {
		return nil, err
	}
	// The statement's background read must stop: we read the socket now.
	c.cr.abortPendingRead()
	return &copyReader{c: c}, nil
}

func (w resultWriter) CopyOut(format int8, ncols int) error {
	f, codes := copyFormats(format, ncols)
	return w.c.send(&pgproto3.CopyOutResponse{OverallFormat: f, ColumnFormatCodes: codes})
}

func (w resultWriter) CopyData(p []byte) error {
	return w.c.send(&pgproto3.CopyData{Data: p})
}

func (w resultWriter) CopyDone() error {
	return w.c.send(&pgproto3.CopyDone{})
}

// copyReader returns the payloads of the CopyData messages of a COPY FROM
// STDIN.
type copyReader struct {
	c    *conn
	buf  []byte // rest of the current CopyData payload
	err  error  // sticky: EOF after CopyDone, the CopyFail error, …
	done bool
}

func (r *copyReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		r.next()
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// next reads the next message of the copy-in sub-protocol.
func (r *copyReader) next() {
	c := r.c
	typ, n, err := c.readHeader()
	if err != nil {
		// The connection is broken or the client violated the protocol:
		// the statement fails and the connection ends.
		c.rerr = err
		r.err = pgerr.Errorf(pgerr.ConnectionException, "unexpected EOF on client connection with an open transaction")
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			r.err = pgerr.Errorf(pgerr.ProtocolViolation, "%v", err)
		}
		return
	}
	switch typ {
	case 'd':
		body, err := c.readBody(n)
		if err != nil {
			c.rerr = err
			r.err = pgerr.Errorf(pgerr.ConnectionException, "unexpected EOF on client connection with an open transaction")
			return
		}
		r.buf = body
	case 'c':
		if _, err := c.br.Discard(n); err != nil {
			c.rerr = eofUnexpected(err)
		}
		r.err = io.EOF
	case 'f':
		body, err := c.readBody(n)
		if err != nil {
			c.rerr = err
			r.err = pgerr.Errorf(pgerr.ConnectionException, "unexpected EOF on client connection with an open transaction")
			return
		}
		var m pgproto3.CopyFail
		_ = m.Decode(body)
		r.err = pgerr.Errorf(pgerr.QueryCanceled, "COPY from stdin failed: %s", m.Message)
	case 'H', 'S':
		// Ignored during COPY IN, as PostgreSQL does.
		if _, err := c.br.Discard(n); err != nil {
			c.rerr = eofUnexpected(err)
			r.err = io.ErrUnexpectedEOF
		}
	default:
		if _, err := c.br.Discard(n); err != nil {
			c.rerr = eofUnexpected(err)
		}
		r.err = pgerr.Errorf(pgerr.ProtocolViolation, "unexpected message type 0x%02X during COPY from stdin", typ)
	}
}
