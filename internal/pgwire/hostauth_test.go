package pgwire

import (
	"net"
	"testing"
)

func TestIsLoopback(t *testing.T) {
	for _, tc := range []struct {
		addr net.Addr
		want bool
	}{
		{&net.TCPAddr{IP: net.ParseIP("127.0.0.1")}, true},
		{&net.TCPAddr{IP: net.ParseIP("127.8.9.1")}, true},
		{&net.TCPAddr{IP: net.ParseIP("::1")}, true},
		{&net.TCPAddr{IP: net.ParseIP("10.0.0.1")}, false},
		{&net.TCPAddr{IP: net.ParseIP("::ffff:192.168.1.1")}, false},
		{&net.UnixAddr{Name: "/tmp/.s.PGSQL.5433", Net: "unix"}, true},
	} {
		if got := IsLoopback(tc.addr); got != tc.want {
			t.Errorf("IsLoopback(%v) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}
