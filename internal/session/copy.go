package session

// COPY … FROM STDIN and COPY … TO STDOUT in text, csv and binary formats,
// through the wire layer's copy sub-protocol (pgwire.CopyWriter). Files and
// programs are not supported (0A000). FREEZE is accepted; the rows are
// inserted normally (visible by MVCC rules rather than pre-frozen).

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/tidal-db/tidal/internal/acl"
	"io"
	"strings"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/xact"
)

const codeBadCopyFileFormat = "22P04"

// copyBatch is how many rows COPY FROM hands to the inserter at once.
const copyBatch = 1000

var binarySignature = []byte("PGCOPY\n\377\r\n\000")

type copyOptions struct {
	format string // "text", "csv" or "binary"
	delim  byte
	null   string
	header bool
	quote  byte
	escape byte
}

func copyOptionString(de *pg.DefElem) (string, bool) {
	if de.Arg == nil {
		return "", false
	}
	if sv := de.Arg.GetString_(); sv != nil {
		return sv.Sval, true
	}
	if ac := de.Arg.GetAConst(); ac != nil && ac.GetSval() != nil {
		return ac.GetSval().Sval, true
	}
	return "", false
}

func parseCopyOptions(cs *pg.CopyStmt) (*copyOptions, error) {
	o := &copyOptions{format: "text"}
	var delim, null, quote, escape *string
	seen := map[string]bool{}
	for _, n := range cs.Options {
		de := n.GetDefElem()
		if de == nil {
			continue
		}
		if seen[de.Defname] {
			return nil, pgerr.Errorf(pgerr.SyntaxError, "conflicting or redundant options")
		}
		seen[de.Defname] = true
		switch de.Defname {
		case "format":
			v, _ := copyOptionString(de)
			switch strings.ToLower(v) {
			case "text", "csv", "binary":
				o.format = strings.ToLower(v)
			default:
				return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "COPY format \"%s\" not recognized", v)
			}
		case "header":
			if v, ok := copyOptionString(de); ok && strings.EqualFold(v, "match") {
				o.header = true
				break
			}
			b, err := defBool(de)
			if err != nil {
				return nil, err
			}
			o.header = b
		case "freeze":
			if _, err := defBool(de); err != nil {
				return nil, err
			}
		case "delimiter":
			v, _ := copyOptionString(de)
			delim = &v
		case "null":
			v, _ := copyOptionString(de)
			null = &v
		case "quote":
			v, _ := copyOptionString(de)
			quote = &v
		case "escape":
			v, _ := copyOptionString(de)
			escape = &v
		case "encoding":
			v, _ := copyOptionString(de)
			if !strings.EqualFold(strings.ReplaceAll(v, "-", ""), "utf8") {
				return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "COPY encoding \"%s\" is not supported", v)
			}
		default:
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "COPY option \"%s\" is not supported yet", de.Defname)
		}
	}
	csv := o.format == "csv"
	if o.format == "binary" {
		if delim != nil {
			return nil, pgerr.Errorf(pgerr.SyntaxError, "cannot specify DELIMITER in BINARY mode")
		}
		if null != nil {
			return nil, pgerr.Errorf(pgerr.SyntaxError, "cannot specify NULL in BINARY mode")
		}
		if o.header {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "cannot specify HEADER in BINARY mode")
		}
	}
	o.delim = '\t'
	o.null = `\N`
	if csv {
		o.delim, o.null, o.quote, o.escape = ',', "", '"', '"'
	}
	if delim != nil {
		if len(*delim) != 1 {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "COPY delimiter must be a single one-byte character")
		}
		o.delim = (*delim)[0]
		if o.delim == '\n' || o.delim == '\r' {
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "COPY delimiter cannot be newline or carriage return")
		}
		if !csv && strings.IndexByte(`\.abcdefghijklmnopqrstuvwxyz0123456789`, o.delim) >= 0 {
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "COPY delimiter cannot be \"%s\"", *delim)
		}
	}
	if null != nil {
		o.null = *null
		if strings.ContainsAny(o.null, "\r\n") {
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "COPY null representation cannot use newline or carriage return")
		}
	}
	if quote != nil || escape != nil {
		if !csv {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "COPY quote available only in CSV mode")
		}
		if quote != nil {
			if len(*quote) != 1 {
				return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "COPY quote must be a single one-byte character")
			}
			o.quote, o.escape = (*quote)[0], (*quote)[0]
		}
		if escape != nil {
			if len(*escape) != 1 {
				return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "COPY escape must be a single one-byte character")
			}
			o.escape = (*escape)[0]
		}
		if o.quote == o.delim {
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "COPY delimiter and quote must be different")
		}
	}
	if strings.IndexByte(o.null, o.delim) >= 0 && o.format != "binary" {
		return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "COPY delimiter character must not appear in the NULL specification")
	}
	return o, nil
}

func (o *copyOptions) wireFormat() int8 {
	if o.format == "binary" {
		return 1
	}
	return 0
}

func copyWriterOf(w pgwire.ResultWriter) (pgwire.CopyWriter, error) {
	cw, ok := w.(pgwire.CopyWriter)
	if !ok {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "COPY FROM STDIN / TO STDOUT is not supported by this connection")
	}
	return cw, nil
}

// copyStmt runs COPY.
func (s *Session) copyStmt(c *exec.Ctx, cs *pg.CopyStmt, w pgwire.ResultWriter) error {
	if cs.Filename != "" || cs.IsProgram {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "COPY to or from a file or program is not supported").
			WithHint("Use COPY … FROM STDIN / TO STDOUT (psql's \\copy).")
	}
	if cs.WhereClause != nil {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "COPY FROM … WHERE is not supported yet")
	}
	o, err := parseCopyOptions(cs)
	if err != nil {
		return err
	}
	if cs.IsFrom {
		return s.copyFrom(c, cs, o, w)
	}
	return s.copyTo(c, cs, o, w)
}

// copyColumns resolves a COPY column list (all columns if empty).
func copyColumns(rel *catalog.Relation, list []*pg.Node) ([]int, error) {
	if len(list) == 0 {
		return rel.VisibleAttrs(), nil
	}
	seen := map[int]bool{}
	var cols []int
	for _, n := range list {
		name := n.GetString_().GetSval()
		i := rel.AttrByName(name)
		if i < 0 {
			return nil, pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, rel.Name)
		}
		if seen[i] {
			return nil, pgerr.Errorf(pgerr.DuplicateColumn, "column \"%s\" specified more than once", name)
		}
		seen[i] = true
		cols = append(cols, i)
	}
	return cols, nil
}

// ---------------------------------------------------------------------------
// COPY FROM

// copyIn is the state of one COPY FROM.
type copyIn struct {
	rel    *catalog.Relation
	o      *copyOptions
	cols   []int
	r      *bufio.Reader
	line   int64 // current line number (1-based), or tuple number in binary
	raw    []byte
	fields [][]byte
	nulls  []bool
	buf    []byte
	spans  []span
	st     *types.Settings // the session's settings (TimeZone) for text input
}

type span struct{ a, b int }

func (ci *copyIn) where(col int, val []byte) string {
	if col < 0 {
		return fmt.Sprintf("COPY %s, line %d: \"%s\"", ci.rel.Name, ci.line, clip(ci.raw))
	}
	return fmt.Sprintf("COPY %s, line %d, column %s: \"%s\"", ci.rel.Name, ci.line, ci.rel.Attrs[ci.cols[col]].Name, clip(val))
}

func clip(b []byte) string {
	b = bytes.TrimRight(b, "\r\n")
	if len(b) > 100 {
		b = b[:100]
		for len(b) > 0 && !utf8.Valid(b) {
			b = b[:len(b)-1]
		}
		return string(b) + "..."
	}
	return string(b)
}

func (ci *copyIn) withContext(err error, col int, val []byte) error {
	pe, ok := err.(*pgerr.Error)
	if !ok {
		return err
	}
	if pe.Where == "" {
		pe.Where = ci.where(col, val)
	}
	return pe
}

func (s *Session) copyFrom(c *exec.Ctx, cs *pg.CopyStmt, o *copyOptions, w pgwire.ResultWriter) error {
	p := &exec.Planner{C: c}
	rel, err := p.OpenRelation(cs.Relation, int(xact.RowExclusiveLock))
	if err != nil {
		return err
	}
	if rel.MatView {
		return pgerr.Errorf(pgerr.WrongObjectType, "cannot copy to materialized view \"%s\"", rel.Name)
	}
	cols, err := copyColumns(rel, cs.Attlist)
	if err != nil {
		return err
	}
	if err := s.requireColumnsPrivilege(c, rel, acl.Insert, cols); err != nil {
		return err
	}
	cw, err := copyWriterOf(w)
	if err != nil {
		return err
	}
	ins, err := exec.NewCopyInserter(c, rel, cols)
	if err != nil {
		return err
	}
	r, err := cw.CopyIn(o.wireFormat(), len(cols))
	if err != nil {
		return err
	}
	ci := &copyIn{rel: rel, o: o, cols: cols, r: bufio.NewReaderSize(r, 64<<10), st: c.Env.Settings}
	batch := make([]exec.Row, 0, copyBatch)
	natts := len(rel.Attrs)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := ins.Insert(c, batch)
		batch = batch[:0]
		return err
	}
	var next func(row exec.Row) (bool, error)
	switch o.format {
	case "binary":
		if err := ci.binaryHeader(); err != nil {
			return err
		}
		next = ci.nextBinary
	default:
		next = ci.nextText
		if o.header {
			if _, err := ci.readLine(); err != nil && err != io.EOF {
				return err
			}
		}
	}
	// Rows of a batch live in one arena, reused batch after batch (the
	// inserter copies what it keeps into tuples and index keys).
	arena := make([]types.Datum, natts*copyBatch)
	for {
		k := len(batch)
		row := exec.Row(arena[k*natts : (k+1)*natts : (k+1)*natts])
		clear(row)
		ok, err := next(row)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		batch = append(batch, row)
		if len(batch) == copyBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	if err := ins.Finish(c); err != nil {
		return err
	}
	return w.CommandComplete(fmt.Sprintf("COPY %d", ins.Count))
}

// drain reads the rest of the copy data after the end marker.
func (ci *copyIn) drain() error {
	_, err := io.Copy(io.Discard, ci.r)
	return err
}

// readLine returns the next physical line (without its line ending), or
// io.EOF at the end of the data.
func (ci *copyIn) readLine() ([]byte, error) {
	ci.raw = ci.raw[:0]
	for {
		chunk, err := ci.r.ReadSlice('\n')
		if len(ci.raw)+len(chunk) > cap(ci.raw) {
			// Double, so a long line (a large value) is copied a few
			// times, not once per 1.25× growth step.
			grown := make([]byte, len(ci.raw), max(2*cap(ci.raw), len(ci.raw)+len(chunk)))
			copy(grown, ci.raw)
			ci.raw = grown
		}
		ci.raw = append(ci.raw, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			if len(ci.raw) == 0 {
				return nil, io.EOF
			}
			break
		}
		if err != nil {
			return nil, err
		}
		break
	}
	ci.line++
	line := ci.raw
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

// nextText reads one row in text or csv format into row.
func (ci *copyIn) nextText(row exec.Row) (bool, error) {
	line, err := ci.readLine()
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if len(line) == 2 && line[0] == '\\' && line[1] == '.' {
		return false, ci.drain()
	}
	if ci.o.format == "csv" {
		// A quoted field may span lines.
		for csvOpenQuote(line, ci.o) {
			save := append([]byte(nil), ci.raw...)
			next, err := ci.readLine()
			if err == io.EOF {
				ci.raw = save
				return false, whereErr(pgerr.Errorf(codeBadCopyFileFormat, "unterminated CSV quoted field"), ci.where(-1, nil))
			}
			if err != nil {
				return false, err
			}
			ci.line--
			ci.raw = append(save, ci.raw...)
			_ = next
			line = bytes.TrimRight(ci.raw, "\r\n")
		}
		if err := ci.splitCSV(line); err != nil {
			return false, err
		}
	} else {
		if err := ci.splitText(line); err != nil {
			return false, err
		}
	}
	if !utf8.Valid(line) {
		return false, ci.withContext(invalidUTF8(line), -1, nil)
	}
	if len(ci.fields) < len(ci.cols) {
		if len(ci.cols) == 0 {
			return true, nil
		}
		return false, whereErr(pgerr.Errorf(codeBadCopyFileFormat, "missing data for column \"%s\"", ci.rel.Attrs[ci.cols[len(ci.fields)]].Name), ci.where(-1, nil))
	}
	if len(ci.fields) > len(ci.cols) {
		if len(ci.cols) == 0 && len(ci.fields) == 1 && len(ci.fields[0]) == 0 && !ci.nulls[0] {
			return true, nil
		}
		return false, whereErr(pgerr.Errorf(codeBadCopyFileFormat, "extra data after last expected column"), ci.where(-1, nil))
	}
	for i, f := range ci.fields {
		if ci.nulls[i] {
			continue
		}
		t := ci.rel.Attrs[ci.cols[i]].Type
		d, err := types.ParseWith(ci.st, t, string(f))
		if err != nil {
			return false, ci.withContext(err, i, f)
		}
		row[ci.cols[i]] = d
	}
	return true, nil
}

func invalidUTF8(b []byte) error {
	i := 0
	for i < len(b) {
		r, sz := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && sz <= 1 {
			break
		}
		i += sz
	}
	if i >= len(b) {
		i = len(b) - 1
	}
	return pgerr.Errorf(pgerr.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": 0x%02x", b[i])
}

// splitText splits a text-format line into de-escaped fields.
func (ci *copyIn) splitText(line []byte) error {
	ci.fields, ci.nulls, ci.buf = ci.fields[:0], ci.nulls[:0], ci.buf[:0]
	delim := ci.o.delim
	spans := ci.spans[:0]
	start := 0
	for i := 0; ; {
		// find the end of this field (an unescaped delimiter)
		j := i
		for j < len(line) && line[j] != delim {
			if line[j] == '\\' && j+1 < len(line) {
				j += 2
				continue
			}
			j++
		}
		raw := line[start:j]
		isNull := string(raw) == ci.o.null
		a := len(ci.buf)
		switch {
		case isNull:
		case bytes.IndexByte(raw, '\\') < 0:
			// No escapes: the field is the line's own bytes (a
			// negative span), not copied, so a large value is not
			// held twice.
			a = -1 - start
		default:
			ci.buf = unescapeText(ci.buf, raw)
		}
		if a < 0 {
			spans = append(spans, span{a, -1 - j})
		} else {
			spans = append(spans, span{a, len(ci.buf)})
		}
		ci.nulls = append(ci.nulls, isNull)
		if j >= len(line) {
			break
		}
		i = j + 1
		start = i
	}
	for _, sp := range spans {
		if sp.a < 0 {
			ci.fields = append(ci.fields, line[-1-sp.a:-1-sp.b])
			continue
		}
		ci.fields = append(ci.fields, ci.buf[sp.a:sp.b])
	}
	ci.spans = spans
	return nil
}

// unescapeText applies text-format backslash escapes.
func unescapeText(dst, raw []byte) []byte {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 >= len(raw) {
			dst = append(dst, c)
			continue
		}
		i++
		c = raw[i]
		switch c {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'v':
			dst = append(dst, '\v')
		case 'x':
			v, n := 0, 0
			for n < 2 && i+1 < len(raw) && unhexDigit(raw[i+1]) >= 0 {
				v = v*16 + unhexDigit(raw[i+1])
				i++
				n++
			}
			if n == 0 {
				dst = append(dst, 'x')
			} else {
				dst = append(dst, byte(v))
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := int(c - '0')
			for n := 1; n < 3 && i+1 < len(raw) && raw[i+1] >= '0' && raw[i+1] <= '7'; n++ {
				v = v*8 + int(raw[i+1]-'0')
				i++
			}
			dst = append(dst, byte(v))
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func unhexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// csvOpenQuote reports whether a CSV line ends inside a quoted field.
func csvOpenQuote(line []byte, o *copyOptions) bool {
	in := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		if in {
			if c == o.escape && i+1 < len(line) && (line[i+1] == o.quote || line[i+1] == o.escape) {
				i++
				continue
			}
			if c == o.quote {
				in = false
			}
			continue
		}
		if c == o.quote {
			in = true
		}
	}
	return in
}

// splitCSV splits a CSV record into fields.
func (ci *copyIn) splitCSV(line []byte) error {
	ci.fields, ci.nulls, ci.buf = ci.fields[:0], ci.nulls[:0], ci.buf[:0]
	o := ci.o
	spans := ci.spans[:0]
	i := 0
	for {
		a := len(ci.buf)
		quoted := false
		rawStart := i
		for i < len(line) && line[i] != o.delim {
			c := line[i]
			if c == o.quote {
				quoted = true
				i++
				for {
					if i >= len(line) {
						return whereErr(pgerr.Errorf(codeBadCopyFileFormat, "unterminated CSV quoted field"), ci.where(-1, nil))
					}
					c = line[i]
					if c == o.escape && i+1 < len(line) && (line[i+1] == o.quote || line[i+1] == o.escape) {
						ci.buf = append(ci.buf, line[i+1])
						i += 2
						continue
					}
					if c == o.quote {
						i++
						break
					}
					ci.buf = append(ci.buf, c)
					i++
				}
				continue
			}
			ci.buf = append(ci.buf, c)
			i++
		}
		isNull := !quoted && string(line[rawStart:i]) == o.null
		spans = append(spans, span{a, len(ci.buf)})
		ci.nulls = append(ci.nulls, isNull)
		if i >= len(line) {
			break
		}
		i++ // delimiter
	}
	for _, sp := range spans {
		ci.fields = append(ci.fields, ci.buf[sp.a:sp.b])
	}
	ci.spans = spans
	return nil
}

// binaryHeader reads the binary COPY file header.
func (ci *copyIn) binaryHeader() error {
	var hdr [19]byte
	if _, err := io.ReadFull(ci.r, hdr[:]); err != nil {
		return ci.readErr(err, "COPY file signature not recognized")
	}
	if !bytes.Equal(hdr[:11], binarySignature) {
		return pgerr.Errorf(codeBadCopyFileFormat, "COPY file signature not recognized")
	}
	flags := binary.BigEndian.Uint32(hdr[11:])
	if flags&(1<<16) != 0 {
		return pgerr.Errorf(codeBadCopyFileFormat, "invalid COPY file header (WITH OIDS)")
	}
	if flags&0xffff0000&^(1<<16) != 0 {
		return pgerr.Errorf(codeBadCopyFileFormat, "unrecognized critical flags in COPY file header")
	}
	ext := binary.BigEndian.Uint32(hdr[15:])
	if _, err := io.CopyN(io.Discard, ci.r, int64(ext)); err != nil {
		return ci.readErr(err, "invalid COPY file header (wrong length)")
	}
	return nil
}

// readErr turns a short read into PostgreSQL's message (a CopyFail or a
// broken connection keeps its own error).
func (ci *copyIn) readErr(err error, msg string) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return pgerr.Errorf(codeBadCopyFileFormat, "%s", msg)
	}
	return err
}

// nextBinary reads one tuple of binary COPY data into row.
func (ci *copyIn) nextBinary(row exec.Row) (bool, error) {
	var b [4]byte
	if _, err := io.ReadFull(ci.r, b[:2]); err != nil {
		if err == io.EOF {
			// PostgreSQL wants the trailer, but tolerates its absence
			// only in old versions; be lenient.
			return false, nil
		}
		return false, ci.readErr(err, "unexpected EOF in COPY data")
	}
	ci.line++
	n := int16(binary.BigEndian.Uint16(b[:2]))
	if n == -1 {
		return false, ci.drain()
	}
	if int(n) != len(ci.cols) {
		return false, whereErr(pgerr.Errorf(codeBadCopyFileFormat, "row field count is %d, expected %d", n, len(ci.cols)),
			fmt.Sprintf("COPY %s, line %d", ci.rel.Name, ci.line))
	}
	for i := range ci.cols {
		if _, err := io.ReadFull(ci.r, b[:4]); err != nil {
			return false, ci.readErr(err, "unexpected EOF in COPY data")
		}
		l := int32(binary.BigEndian.Uint32(b[:4]))
		if l == -1 {
			continue
		}
		if l < 0 {
			return false, pgerr.Errorf(codeBadCopyFileFormat, "invalid field size")
		}
		if cap(ci.buf) < int(l) {
			ci.buf = make([]byte, l)
		}
		v := ci.buf[:l]
		if _, err := io.ReadFull(ci.r, v); err != nil {
			return false, ci.readErr(err, "unexpected EOF in COPY data")
		}
		t := ci.rel.Attrs[ci.cols[i]].Type
		d, err := types.ParseBinary(t, v)
		if err != nil {
			if pgerr.Code(err) == types.ErrBinaryFormat || pgerr.Code(err) == pgerr.ProtocolViolation {
				err = pgerr.Errorf("22P03", "incorrect binary data format")
			}
			pe := pgerr.From(err)
			if pe.Where == "" {
				pe.Where = fmt.Sprintf("COPY %s, line %d, column %s", ci.rel.Name, ci.line, ci.rel.Attrs[ci.cols[i]].Name)
			}
			return false, pe
		}
		row[ci.cols[i]] = d
	}
	return true, nil
}

// ---------------------------------------------------------------------------
// COPY TO

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func (s *Session) copyTo(c *exec.Ctx, cs *pg.CopyStmt, o *copyOptions, w pgwire.ResultWriter) error {
	p := &exec.Planner{C: c}
	var sel *pg.SelectStmt
	if cs.Query != nil {
		if len(cs.Attlist) > 0 {
			return pgerr.Errorf(pgerr.SyntaxError, "column list cannot be specified with a query")
		}
		sel = cs.Query.GetSelectStmt()
		if sel == nil {
			return pgerr.Errorf(pgerr.FeatureNotSupported, "COPY of this query is not supported yet")
		}
	} else {
		rel, err := p.OpenRelation(cs.Relation, int(xact.AccessShareLock))
		if err != nil {
			return err
		}
		if rel.Kind == catalog.KindSequence {
			return pgerr.Errorf(pgerr.WrongObjectType, "cannot copy from sequence \"%s\"", rel.Name)
		}
		if what := map[bool]string{true: "materialized view", false: "view"}[rel.MatView]; rel.MatView || rel.Kind == catalog.KindView {
			return pgerr.Errorf(pgerr.WrongObjectType, "cannot copy from %s \"%s\"", what, rel.Name).
				WithHint("Try the COPY (SELECT ...) TO variant.")
		}
		cols, err := copyColumns(rel, cs.Attlist)
		if err != nil {
			return err
		}
		if err := s.requireColumnsPrivilege(c, rel, acl.Select, cols); err != nil {
			return err
		}
		names := make([]string, len(cols))
		for i, ci := range cols {
			names[i] = quoteIdent(rel.Attrs[ci].Name)
		}
		from := quoteIdent(rel.Name)
		if cs.Relation.Schemaname != "" {
			from = quoteIdent(cs.Relation.Schemaname) + "." + from
		}
		q := "SELECT " + strings.Join(names, ", ") + " FROM " + from
		if len(cols) == 0 {
			q = "SELECT FROM " + from
		}
		tree, err := pg.Parse(q)
		if err != nil {
			return err
		}
		sel = tree.Stmts[0].Stmt.GetSelectStmt()
	}
	node, cols, err := p.PlanSelect(sel)
	if err != nil {
		return err
	}
	cw, err := copyWriterOf(w)
	if err != nil {
		return err
	}
	if err := cw.CopyOut(o.wireFormat(), len(cols)); err != nil {
		return err
	}
	var buf []byte
	if o.format == "binary" {
		buf = append(buf, binarySignature...)
		buf = binary.BigEndian.AppendUint32(buf, 0)
		buf = binary.BigEndian.AppendUint32(buf, 0)
	} else if o.header {
		for i, col := range cols {
			if i > 0 {
				buf = append(buf, o.delim)
			}
			buf = o.appendField(buf, []byte(col.Name), i == 0 && len(cols) == 1)
		}
		buf = append(buf, '\n')
		if err := cw.CopyData(buf); err != nil {
			return err
		}
		buf = buf[:0]
	}
	var n int64
	var val []byte
	err = exec.Run(c, node, func(r exec.Row) error {
		if o.format == "binary" {
			buf = binary.BigEndian.AppendUint16(buf, uint16(len(cols)))
			for i, col := range cols {
				if r[i].IsNull() {
					buf = binary.BigEndian.AppendUint32(buf, 0xffffffff)
					continue
				}
				at := len(buf)
				buf = append(buf, 0, 0, 0, 0)
				buf = types.AppendBinary(buf, col.Type, r[i])
				binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
			}
		} else {
			for i, col := range cols {
				if i > 0 {
					buf = append(buf, o.delim)
				}
				if r[i].IsNull() {
					buf = append(buf, o.null...)
					continue
				}
				val = types.AppendTextWith(c.Env.Settings, val[:0], col.Type, r[i])
				buf = o.appendField(buf, val, i == 0 && len(cols) == 1)
			}
			buf = append(buf, '\n')
		}
		n++
		err := cw.CopyData(buf)
		buf = buf[:0]
		return err
	})
	if err != nil {
		return err
	}
	if o.format == "binary" {
		if err := cw.CopyData(binary.BigEndian.AppendUint16(buf[:0], 0xffff)); err != nil {
			return err
		}
	}
	if err := cw.CopyDone(); err != nil {
		return err
	}
	return w.CommandComplete(fmt.Sprintf("COPY %d", n))
}

// appendField appends a non-NULL value in text or csv format.
func (o *copyOptions) appendField(dst, v []byte, only bool) []byte {
	if o.format == "csv" {
		need := string(v) == o.null || (only && string(v) == `\.`)
		if !need {
			for _, c := range v {
				if c == o.delim || c == o.quote || c == '\n' || c == '\r' {
					need = true
					break
				}
			}
		}
		if !need {
			return append(dst, v...)
		}
		dst = append(dst, o.quote)
		for _, c := range v {
			if c == o.quote || c == o.escape {
				dst = append(dst, o.escape)
			}
			dst = append(dst, c)
		}
		return append(dst, o.quote)
	}
	for _, c := range v {
		switch c {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\v':
			dst = append(dst, '\\', 'v')
		default:
			if c == o.delim {
				dst = append(dst, '\\')
			}
			dst = append(dst, c)
		}
	}
	return dst
}

func whereErr(e *pgerr.Error, where string) *pgerr.Error {
	e.Where = where
	return e
}
