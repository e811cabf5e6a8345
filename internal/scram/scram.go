// Package scram implements SCRAM-SHA-256 (RFC 5802, RFC 7677) as
// PostgreSQL uses it: password verifiers in PostgreSQL's text format and
// the server side of the SASL exchange, without channel binding.
package scram

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Mechanism is the SASL mechanism name.
const Mechanism = "SCRAM-SHA-256"

// DefaultIterations is PostgreSQL's scram_iterations default.
const DefaultIterations = 4096

const saltLen = 16 // PostgreSQL's SCRAM_DEFAULT_SALT_LEN

var b64 = base64.StdEncoding

// PBKDF2 is PBKDF2-HMAC-SHA256 producing one 32-byte block (all SCRAM
// needs): Hi(password, salt, i) of RFC 5802.
func PBKDF2(password, salt []byte, iter int) []byte {
	mac := hmac.New(sha256.New, password)
	mac.Write(salt)
	mac.Write([]byte{0, 0, 0, 1})
	u := mac.Sum(nil)
	out := append([]byte(nil), u...)
	for i := 1; i < iter; i++ {
		mac.Reset()
		mac.Write(u)
		u = mac.Sum(u[:0])
		for j := range out {
			out[j] ^= u[j]
		}
	}
	return out
}

func hmacSHA256(key []byte, msgs ...string) []byte {
	m := hmac.New(sha256.New, key)
	for _, s := range msgs {
		m.Write([]byte(s))
	}
	return m.Sum(nil)
}

// Keys derives StoredKey and ServerKey from a password.
func Keys(password string, salt []byte, iter int) (storedKey, serverKey []byte) {
	salted := PBKDF2([]byte(password), salt, iter)
	clientKey := hmacSHA256(salted, "Client Key")
	sk := sha256.Sum256(clientKey)
	return sk[:], hmacSHA256(salted, "Server Key")
}

// Verifier is a parsed SCRAM-SHA-256 secret.
type Verifier struct {
	Iterations int
	Salt       []byte
	StoredKey  []byte
	ServerKey  []byte
}

// String formats v as PostgreSQL stores it in pg_authid.rolpassword:
// SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>.
func (v *Verifier) String() string {
	return fmt.Sprintf("%s$%d:%s$%s:%s", Mechanism, v.Iterations, b64.EncodeToString(v.Salt),
		b64.EncodeToString(v.StoredKey), b64.EncodeToString(v.ServerKey))
}

// NewVerifier makes a verifier for password with a random salt.
func NewVerifier(password string) (*Verifier, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return nil, err
	}
	return MakeVerifier(password, salt, DefaultIterations), nil
}

// MakeVerifier makes a verifier with the given salt and iteration count.
func MakeVerifier(password string, salt []byte, iter int) *Verifier {
	st, sv := Keys(password, salt, iter)
	return &Verifier{Iterations: iter, Salt: salt, StoredKey: st, ServerKey: sv}
}

// Encrypt returns what to store for a password given to CREATE/ALTER
// ROLE: a password already in verifier format is stored as is.
func Encrypt(password string) (string, error) {
	if _, err := ParseVerifier(password); err == nil {
		return password, nil
	}
	v, err := NewVerifier(password)
	if err != nil {
		return "", err
	}
	return v.String(), nil
}

// ParseVerifier parses PostgreSQL's verifier format.
func ParseVerifier(s string) (*Verifier, error) {
	bad := errors.New("not a SCRAM-SHA-256 verifier")
	rest, ok := strings.CutPrefix(s, Mechanism+"$")
	if !ok {
		return nil, bad
	}
	head, keys, ok := strings.Cut(rest, "$")
	if !ok {
		return nil, bad
	}
	its, salts, ok := strings.Cut(head, ":")
	if !ok {
		return nil, bad
	}
	stored, server, ok := strings.Cut(keys, ":")
	if !ok {
		return nil, bad
	}
	iter, err := strconv.Atoi(its)
	if err != nil || iter <= 0 {
		return nil, bad
	}
	v := &Verifier{Iterations: iter}
	if v.Salt, err = b64.DecodeString(salts); err != nil || len(v.Salt) == 0 {
		return nil, bad
	}
	if v.StoredKey, err = b64.DecodeString(stored); err != nil || len(v.StoredKey) != sha256.Size {
		return nil, bad
	}
	if v.ServerKey, err = b64.DecodeString(server); err != nil || len(v.ServerKey) != sha256.Size {
		return nil, bad
	}
	return v, nil
}

// ErrAuthFailed means the client did not prove knowledge of the password.
var ErrAuthFailed = errors.New("password authentication failed")

// ProtocolError is a malformed or unsupported client message.
type ProtocolError struct{ Msg string }

func (e *ProtocolError) Error() string { return e.Msg }

func protoErr(format string, args ...any) error {
	return &ProtocolError{fmt.Sprintf(format, args...)}
}

// Exchange is the server side of one SCRAM-SHA-256 authentication.
type Exchange struct {
	v       *Verifier
	mock    bool // no usable verifier: go through the motions, then fail
	nonce   string
	gs2     string
	first   string // client-first-message-bare
	sfirst  string // server-first-message
	fullNon string
}

// NewExchange starts an exchange against verifier (PostgreSQL's text
// format). An empty or invalid verifier gives a mock exchange that
// always fails at the end, so a client cannot tell a role without a
// password from a wrong password. serverNonce may be empty (random).
func NewExchange(verifier, serverNonce string) (*Exchange, error) {
	x := &Exchange{nonce: serverNonce}
	v, err := ParseVerifier(verifier)
	if err != nil {
		salt := make([]byte, saltLen)
		if _, err := rand.Read(salt); err != nil {
			return nil, err
		}
		v = &Verifier{Iterations: DefaultIterations, Salt: salt, StoredKey: make([]byte, 32), ServerKey: make([]byte, 32)}
		x.mock = true
	}
	x.v = v
	if x.nonce == "" {
		raw := make([]byte, 18) // SCRAM_RAW_NONCE_LEN
		if _, err := rand.Read(raw); err != nil {
			return nil, err
		}
		x.nonce = b64.EncodeToString(raw)
	}
	return x, nil
}

// ClientFirst takes the client-first-message and returns the
// server-first-message.
func (x *Exchange) ClientFirst(msg string) (string, error) {
	var cbflag string
	switch {
	case strings.HasPrefix(msg, "n,"), strings.HasPrefix(msg, "y,"):
		cbflag, msg = msg[:2], msg[2:]
	case strings.HasPrefix(msg, "p="):
		return "", protoErr("malformed SCRAM message: the client selected SCRAM-SHA-256 without channel binding, but the SCRAM message includes channel binding data")
	default:
		return "", protoErr("malformed SCRAM message: unexpected channel-binding flag")
	}
	if strings.HasPrefix(msg, "a=") {
		return "", protoErr("client uses authorization identity, but it is not supported")
	}
	if !strings.HasPrefix(msg, ",") {
		return "", protoErr("malformed SCRAM message: unexpected attribute in client-first-message")
	}
	x.gs2 = cbflag + ","
	msg = msg[1:]
	x.first = msg
	attrs := strings.Split(msg, ",")
	if len(attrs) < 2 {
		return "", protoErr("malformed SCRAM message: client-first-message too short")
	}
	if strings.HasPrefix(attrs[0], "m=") {
		return "", protoErr("client requires an unsupported SCRAM extension")
	}
	if !strings.HasPrefix(attrs[0], "n=") {
		return "", protoErr("malformed SCRAM message: expected attribute \"n\"")
	}
	cnonce, ok := strings.CutPrefix(attrs[1], "r=")
	if !ok || cnonce == "" {
		return "", protoErr("malformed SCRAM message: expected attribute \"r\"")
	}
	for _, c := range cnonce {
		if c < 0x21 || c > 0x7e || c == ',' {
			return "", protoErr("malformed SCRAM message: invalid nonce")
		}
	}
	x.fullNon = cnonce + x.nonce
	x.sfirst = fmt.Sprintf("r=%s,s=%s,i=%d", x.fullNon, b64.EncodeToString(x.v.Salt), x.v.Iterations)
	return x.sfirst, nil
}

// ClientFinal takes the client-final-message and returns the
// server-final-message, or ErrAuthFailed.
func (x *Exchange) ClientFinal(msg string) (string, error) {
	attrs := strings.Split(msg, ",")
	if len(attrs) < 3 {
		return "", protoErr("malformed SCRAM message: client-final-message too short")
	}
	cb, ok := strings.CutPrefix(attrs[0], "c=")
	if !ok {
		return "", protoErr("malformed SCRAM message: expected attribute \"c\"")
	}
	raw, err := b64.DecodeString(cb)
	if err != nil || string(raw) != x.gs2 {
		return "", protoErr("SCRAM channel binding check failed")
	}
	nonce, ok := strings.CutPrefix(attrs[1], "r=")
	if !ok {
		return "", protoErr("malformed SCRAM message: expected attribute \"r\"")
	}
	if nonce != x.fullNon {
		return "", protoErr("SCRAM nonce mismatch")
	}
	last := attrs[len(attrs)-1]
	proofS, ok := strings.CutPrefix(last, "p=")
	if !ok {
		return "", protoErr("malformed SCRAM message: expected attribute \"p\"")
	}
	proof, err := b64.DecodeString(proofS)
	if err != nil || len(proof) != sha256.Size {
		return "", protoErr("malformed SCRAM message: malformed proof in client-final-message")
	}
	withoutProof := msg[:len(msg)-len(last)-1]
	authMsg := x.first + "," + x.sfirst + "," + withoutProof
	sig := hmacSHA256(x.v.StoredKey, authMsg)
	clientKey := make([]byte, sha256.Size)
	for i := range clientKey {
		clientKey[i] = proof[i] ^ sig[i]
	}
	h := sha256.Sum256(clientKey)
	if x.mock || subtle.ConstantTimeCompare(h[:], x.v.StoredKey) != 1 {
		return "", ErrAuthFailed
	}
	return "v=" + b64.EncodeToString(hmacSHA256(x.v.ServerKey, authMsg)), nil
}
