// Package acl is PostgreSQL's access control lists (utils/acl.h): the
// privilege bits, the aclitem text form "grantee=privs/grantor" (an empty
// grantee is PUBLIC; a '*' after a letter is its grant option), the
// default list an object has while its stored list is NULL, and the
// GRANT/REVOKE updates. Roles are named, not numbered: the catalog keeps
// each list as the text[] PostgreSQL prints for it.
package acl

import (
	"fmt"
	"strings"
)

// Mode is a set of privileges, PostgreSQL's ACL_* bits.
type Mode uint32

// The privileges, in PostgreSQL's bit order (ACL_INSERT … ACL_ALTER_SYSTEM).
const (
	Insert Mode = 1 << iota
	Select
	Update
	Delete
	Truncate
	References
	Trigger
	Execute
	Usage
	Create
	CreateTemp
	Connect
	Set
	AlterSystem
)

// letters are ACL_ALL_RIGHTS_STR: letter i is bit i.
const letters = "arwdDxtXUCTcsA"

// names are the privileges as GRANT spells them, bit by bit.
var names = []string{"INSERT", "SELECT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER",
	"EXECUTE", "USAGE", "CREATE", "TEMPORARY", "CONNECT", "SET", "ALTER SYSTEM"}

// Kind is the kind of object a list belongs to; it decides the
// privileges that exist for it and its default list.
type Kind int

const (
	Table Kind = iota
	Column
	Sequence
	Function
	Type
	Schema
	Database
	Language
	LargeObject
)

// All is every privilege an object of kind k has (ACL_ALL_RIGHTS_*).
func All(k Kind) Mode {
	switch k {
	case Table:
		return Insert | Select | Update | Delete | Truncate | References | Trigger
	case Column:
		return Insert | Select | Update | References
	case Sequence:
		return Usage | Select | Update
	case Function:
		return Execute
	case Type, Language:
		return Usage
	case Schema:
		return Usage | Create
	case Database:
		return Create | CreateTemp | Connect
	case LargeObject:
		return Select | Update
	}
	return 0
}

// Item is one aclitem; Grantee "" is PUBLIC.
type Item struct {
	Grantee, Grantor string
	Privs, Grant     Mode // Grant ⊆ Privs: the privileges it may grant on
}

// ACL is an object's list, in its stored order.
type ACL []Item

// Default is acldefault: the owner holds every privilege; PUBLIC may
// execute functions, use types and languages, connect to databases and
// create temporary tables in them. PUBLIC's item comes first.
func Default(k Kind, owner string) ACL {
	var world Mode
	switch k {
	case Function:
		world = Execute
	case Type, Language:
		world = Usage
	case Database:
		world = CreateTemp | Connect
	}
	var out ACL
	if world != 0 {
		out = append(out, Item{Grantor: owner, Privs: world})
	}
	if k == Column {
		return out // a column's privileges come from its table's
	}
	return append(out, Item{Grantee: owner, Grantor: owner, Privs: All(k)})
}

// String is the aclitem text form.
func (it Item) String() string {
	var b strings.Builder
	b.WriteString(quoteRole(it.Grantee))
	b.WriteByte('=')
	for i := 0; i < len(letters); i++ {
		if it.Privs&(1<<i) != 0 {
			b.WriteByte(letters[i])
			if it.Grant&(1<<i) != 0 {
				b.WriteByte('*')
			}
		}
	}
	b.WriteByte('/')
	b.WriteString(quoteRole(it.Grantor))
	return b.String()
}

// quoteRole double-quotes a name unless it is letters, digits and
// underscores (aclitemout's putid).
func quoteRole(name string) string {
	for _, r := range name {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0x80) {
			return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
		}
	}
	return name
}

// ParseItem reads an aclitem's text form.
func ParseItem(s string) (Item, error) {
	var it Item
	grantee, rest, err := readRole(s)
	if err != nil {
		return it, err
	}
	if !strings.HasPrefix(rest, "=") {
		return it, fmt.Errorf("missing \"=\" sign")
	}
	rest = rest[1:]
	it.Grantee = grantee
	for rest != "" && rest[0] != '/' {
		i := strings.IndexByte(letters, rest[0])
		if i < 0 {
			return it, fmt.Errorf("invalid mode character: must be one of \"%s\"", letters)
		}
		it.Privs |= 1 << i
		rest = rest[1:]
		if rest != "" && rest[0] == '*' {
			it.Grant |= 1 << i
			rest = rest[1:]
		}
	}
	if rest == "" {
		return it, fmt.Errorf("a name must follow the \"/\" sign")
	}
	grantor, tail, err := readRole(rest[1:])
	if err != nil {
		return it, err
	}
	if strings.TrimSpace(tail) != "" {
		return it, fmt.Errorf("extra garbage at the end of the ACL specification")
	}
	it.Grantor = grantor
	return it, nil
}

func readRole(s string) (name, rest string, err error) {
	if !strings.HasPrefix(s, `"`) {
		i := strings.IndexAny(s, "=/")
		if i < 0 {
			i = len(s)
		}
		return s[:i], s[i:], nil
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] == '"' {
			if i+1 < len(s) && s[i+1] == '"' {
				b.WriteByte('"')
				i++
				continue
			}
			return b.String(), s[i+1:], nil
		}
		b.WriteByte(s[i])
	}
	return "", "", fmt.Errorf("unterminated name")
}

// Parse reads a stored list (the elements of its text[]).
func Parse(elems []string) (ACL, error) {
	out := make(ACL, 0, len(elems))
	for _, e := range elems {
		it, err := ParseItem(e)
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}

// Strings is the list as its text[] elements.
func (a ACL) Strings() []string {
	out := make([]string, len(a))
	for i, it := range a {
		out[i] = it.String()
	}
	return out
}

// Mask is the privileges (and grant options) the items of a give to the
// roles holds accepts (a role name; "" for PUBLIC, which every role holds).
func (a ACL) Mask(holds func(grantee string) bool) (privs, grant Mode) {
	for _, it := range a {
		if it.Grantee == "" || holds(it.Grantee) {
			privs |= it.Privs
			grant |= it.Grant
		}
	}
	return privs, grant
}

// Grant adds privs (and the grant options grantOpt) for grantee, given by
// grantor (aclupdate with ACL_MODECHG_ADD).
func (a ACL) Grant(grantee, grantor string, privs, grantOpt Mode) ACL {
	out := append(ACL(nil), a...)
	for i := range out {
		if out[i].Grantee == grantee && out[i].Grantor == grantor {
			out[i].Privs |= privs
			out[i].Grant |= grantOpt & privs
			return out
		}
	}
	return append(out, Item{Grantee: grantee, Grantor: grantor, Privs: privs, Grant: grantOpt & privs})
}

// ErrDependentPrivileges is what Revoke returns when, without cascade,
// the grant options revoked were used to grant privileges onwards.
var ErrDependentPrivileges = fmt.Errorf("dependent privileges exist")

// Revoke takes privs from grantee's item given by grantor (only the
// grant options on them with optionOnly). The grant options lost take
// with them what grantee granted with them — when cascade; otherwise
// such grants are ErrDependentPrivileges.
func (a ACL) Revoke(grantee, grantor string, privs Mode, optionOnly, cascade bool) (ACL, error) {
	out := append(ACL(nil), a...)
	var lost Mode
	for i := range out {
		if out[i].Grantee != grantee || out[i].Grantor != grantor {
			continue
		}
		lost = out[i].Grant & privs
		out[i].Grant &^= privs
		if !optionOnly {
			out[i].Privs &^= privs
		}
	}
	out = compact(out)
	if lost == 0 || grantee == "" {
		return out, nil
	}
	// What grantee still may grant, from other grantors.
	var still Mode
	for _, it := range out {
		if it.Grantee == grantee {
			still |= it.Grant
		}
	}
	lost &^= still
	if lost == 0 {
		return out, nil
	}
	for _, it := range out {
		if it.Grantor != grantee || it.Privs&lost == 0 {
			continue
		}
		if !cascade {
			return nil, ErrDependentPrivileges
		}
		var err error
		if out, err = out.Revoke(it.Grantee, grantee, lost, false, true); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func compact(a ACL) ACL {
	out := a[:0]
	for _, it := range a {
		if it.Privs != 0 {
			out = append(out, it)
		}
	}
	return out
}

// RenameRole is the list with role from renamed to to.
func (a ACL) RenameRole(from, to string) ACL {
	out := append(ACL(nil), a...)
	for i := range out {
		if out[i].Grantee == from {
			out[i].Grantee = to
		}
		if out[i].Grantor == from {
			out[i].Grantor = to
		}
	}
	return out
}

// Name is the privilege bit m as GRANT spells it ("" for a set of bits).
func Name(m Mode) string {
	for i, n := range names {
		if m == 1<<i {
			return n
		}
	}
	return ""
}

// ParseName reads one privilege name (any case; TEMP for TEMPORARY).
func ParseName(s string) (Mode, bool) {
	u := strings.ToUpper(strings.TrimSpace(s))
	if u == "TEMP" {
		return CreateTemp, true
	}
	for i, n := range names {
		if n == u {
			return 1 << i, true
		}
	}
	return 0, false
}

// Letters are the privileges of m as aclitem letters ("arw…").
func Letters(m Mode) string {
	var b strings.Builder
	for i := 0; i < len(letters); i++ {
		if m&(1<<i) != 0 {
			b.WriteByte(letters[i])
		}
	}
	return b.String()
}

// Bits lists the privileges of m one by one, in bit order.
func Bits(m Mode) []Mode {
	var out []Mode
	for i := 0; i < len(letters); i++ {
		if m&(1<<i) != 0 {
			out = append(out, 1<<i)
		}
	}
	return out
}

// NewOwner is aclnewowner: every item naming the old owner, as grantee
// or grantor, names the new one; items that then coincide merge.
func (a ACL) NewOwner(old, owner string) ACL {
	var out ACL
	for _, it := range a.RenameRole(old, owner) {
		merged := false
		for i := range out {
			if out[i].Grantee == it.Grantee && out[i].Grantor == it.Grantor {
				out[i].Privs |= it.Privs
				out[i].Grant |= it.Grant
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, it)
		}
	}
	if out == nil && a != nil {
		out = ACL{}
	}
	return out
}
