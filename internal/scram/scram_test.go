package scram

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"regexp"
	"testing"
)

// RFC 7677 section 3.
const (
	rfcClientFirst = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
	rfcServerNonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
	rfcServerFirst = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
	rfcClientFinal = "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
	rfcServerFinal = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
)

func rfcVerifier(t *testing.T) string {
	salt, _ := base64.StdEncoding.DecodeString("W22ZaJ0SNY7soEsUEjb6gQ==")
	return MakeVerifier("pencil", salt, 4096).String()
}

func TestRFC7677(t *testing.T) {
	x, err := NewExchange(rfcVerifier(t), rfcServerNonce)
	if err != nil {
		t.Fatal(err)
	}
	sf, err := x.ClientFirst(rfcClientFirst)
	if err != nil || sf != rfcServerFirst {
		t.Fatalf("server-first = %q, %v; want %q", sf, err, rfcServerFirst)
	}
	fin, err := x.ClientFinal(rfcClientFinal)
	if err != nil || fin != rfcServerFinal {
		t.Fatalf("server-final = %q, %v; want %q", fin, err, rfcServerFinal)
	}
}

func TestWrongPassword(t *testing.T) {
	salt, _ := base64.StdEncoding.DecodeString("W22ZaJ0SNY7soEsUEjb6gQ==")
	x, _ := NewExchange(MakeVerifier("pencil2", salt, 4096).String(), rfcServerNonce)
	if _, err := x.ClientFirst(rfcClientFirst); err != nil {
		t.Fatal(err)
	}
	if _, err := x.ClientFinal(rfcClientFinal); !errors.Is(err, ErrAuthFailed) {
		t.Fatalf("err = %v, want ErrAuthFailed", err)
	}
	// No verifier: a mock exchange that fails at the end.
	x, _ = NewExchange("", rfcServerNonce)
	if _, err := x.ClientFirst(rfcClientFirst); err != nil {
		t.Fatal(err)
	}
	if _, err := x.ClientFinal(rfcClientFinal); !errors.Is(err, ErrAuthFailed) {
		t.Fatalf("mock: err = %v, want ErrAuthFailed", err)
	}
}

func TestProtocolErrors(t *testing.T) {
	for _, m := range []string{"p=tls-server-end-point,,n=u,r=abc", "n,a=bob,n=u,r=abc", "x,,n=u,r=abc", "n,,m=ext,n=u,r=abc", "n,,n=u"} {
		x, _ := NewExchange(rfcVerifier(t), "")
		var pe *ProtocolError
		if _, err := x.ClientFirst(m); !errors.As(err, &pe) {
			t.Errorf("%q: err = %v, want a protocol error", m, err)
		}
	}
	x, _ := NewExchange(rfcVerifier(t), rfcServerNonce)
	x.ClientFirst(rfcClientFirst)
	var pe *ProtocolError
	if _, err := x.ClientFinal("c=eSws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="); !errors.As(err, &pe) {
		t.Errorf("channel binding mismatch: err = %v", err)
	}
}

func TestVerifierFormat(t *testing.T) {
	v, err := Encrypt("secret")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^SCRAM-SHA-256\$4096:[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=:[A-Za-z0-9+/]{43}=$`)
	if !re.MatchString(v) {
		t.Fatalf("verifier %q", v)
	}
	// Already a verifier: stored as is.
	if again, _ := Encrypt(v); again != v {
		t.Fatalf("re-encrypt changed %q to %q", v, again)
	}
	p, err := ParseVerifier(v)
	if err != nil || p.String() != v {
		t.Fatalf("parse: %v %v", p, err)
	}
	st, sv := Keys("secret", p.Salt, p.Iterations)
	if string(st) != string(p.StoredKey) || string(sv) != string(p.ServerKey) {
		t.Fatal("keys do not match")
	}
	// A known PostgreSQL verifier (salt and keys from the RFC vector).
	want := "SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=:wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU="
	if got := rfcVerifier(t); got != want {
		t.Fatalf("verifier = %q, want %q", got, want)
	}
}

func TestPBKDF2(t *testing.T) {
	// RFC 7914 section 11 (PBKDF2-HMAC-SHA256, c=1, first 32 bytes).
	got := PBKDF2([]byte("passwd"), []byte("salt"), 1)
	want := []byte{0x55, 0xac, 0x04, 0x6e, 0x56, 0xe3, 0x08, 0x9f, 0xec, 0x16, 0x91, 0xc2, 0x25, 0x44, 0xb6, 0x05,
		0xf9, 0x41, 0x85, 0x21, 0x6d, 0xde, 0x04, 0x65, 0xe6, 0x8b, 0x9d, 0x57, 0xc2, 0x0d, 0xac, 0xbc}
	if string(got) != string(want) {
		t.Fatalf("PBKDF2 = %x", got)
	}
	_ = sha256.Size
}
