package types

import (
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Composite types (CREATE TYPE … AS (…)): a value is a record datum
// (record.go) whose field types are the composite's, so output, ordering
// and equality need no catalog; input and conversion from an anonymous
// record need the fields, which a session's Settings.UserTypes gives.

// Composite is a composite type's fields.
type Composite struct {
	OID    OID
	Name   string // format_type name, for messages
	Fields []string
	Types  []Type
}

func compositeOf(st *Settings, t Type) *Composite {
	if st == nil || st.UserTypes == nil || !IsUserType(t) {
		return nil
	}
	return st.UserTypes.Composite(t.OID)
}

// CompositeOf describes composite type t in the session's settings; nil
// if it is none.
func CompositeOf(st *Settings, t Type) *Composite { return compositeOf(st, t) }

// parse is record_in: "(f1,f2,…)", a field empty for NULL, double quotes
// around a field with special characters ("" and \ escaping inside),
// white space around the parentheses ignored.
func (c *Composite) parse(st *Settings, s string) (Datum, error) {
	bad := func(detail string) error {
		return pgerr.Errorf(pgerr.InvalidTextRepresentation, "malformed record literal: \"%s\"", s).WithDetail("%s", detail)
	}
	p := strings.TrimLeft(s, " \t\n\r\v\f")
	if p == "" || p[0] != '(' {
		return Datum{}, bad("Missing left parenthesis.")
	}
	p = p[1:]
	vals := make([]Datum, len(c.Types))
	for i, ft := range c.Types {
		if i > 0 {
			if p == "" || p[0] != ',' {
				return Datum{}, bad("Too few columns.")
			}
			p = p[1:]
		}
		if p != "" && (p[0] == ',' || p[0] == ')') {
			vals[i] = Null()
			continue
		}
		var b strings.Builder
		inQuote := false
		for {
			if p == "" {
				return Datum{}, bad("Unexpected end of input.")
			}
			ch := p[0]
			if !inQuote && (ch == ',' || ch == ')') {
				break
			}
			p = p[1:]
			switch {
			case ch == '\\':
				if p == "" {
					return Datum{}, bad("Unexpected end of input.")
				}
				b.WriteByte(p[0])
				p = p[1:]
			case ch == '"' && inQuote && p != "" && p[0] == '"':
				b.WriteByte('"')
				p = p[1:]
			case ch == '"':
				inQuote = !inQuote
			default:
				b.WriteByte(ch)
			}
		}
		v, err := ParseWith(st, ft, b.String())
		if err != nil {
			return Datum{}, err
		}
		vals[i] = v
	}
	if p == "" || p[0] != ')' {
		return Datum{}, bad("Too many columns.")
	}
	if strings.TrimLeft(p[1:], " \t\n\r\v\f") != "" {
		return Datum{}, bad("Junk after right parenthesis.")
	}
	return RecordValue(c.Types, vals), nil
}

// fromRecord converts an anonymous record (ROW(…)) to the composite,
// each field by an assignment cast, as coerce_record_to_complex.
func (c *Composite) fromRecord(st *Settings, d Datum, ctx CastContext) (Datum, error) {
	ts, vals := RecordFields(d)
	if len(vals) != len(c.Types) {
		detail := "Input has too few columns."
		if len(vals) > len(c.Types) {
			detail = "Input has too many columns."
		}
		return Datum{}, pgerr.Errorf(errCannotCoerce, "cannot cast type record to %s", c.Name).WithDetail("%s", detail)
	}
	out := make([]Datum, len(vals))
	for i, v := range vals {
		fctx := CastAssignment
		if ctx == CastExplicit {
			fctx = CastExplicit
		}
		cv, err := CastWith(st, v, ts[i], c.Types[i], fctx)
		if err != nil {
			return Datum{}, err
		}
		out[i] = cv
	}
	return RecordValue(c.Types, out), nil
}

// hashRecord hashes a record consistently with compareRecords' equality:
// field by field.
func hashRecord(d Datum) uint64 {
	ts, vals := RecordFields(d)
	h := uint64(hashK0)
	for i, v := range vals {
		if v.IsNull() {
			h = mix(h^hashK1, hashK2)
			continue
		}
		h = mix(h^Hash(ts[i], v), hashK1)
	}
	return h
}
