package pgtest

import (
	"io"
	"net"
	neturl "net/url"
	"sync"
	"testing"
)

// Proxy stands between a store and the test server on 127.0.0.1, so a
// test can take the database away from the store: Down closes the port
// and every connection (the server refuses and drops connections);
// Silence keeps accepting but never answers (a server that hangs).
type Proxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	silent bool
	conns  []net.Conn
}

// NewProxy forwards to the host of the connection string url and returns
// the proxy with url pointing at it instead; it is taken down when t ends.
func NewProxy(t testing.TB, url string) (*Proxy, string) {
	t.Helper()
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, target: u.Host}
	go p.serve()
	t.Cleanup(p.Down)
	u.Host = ln.Addr().String()
	return p, u.String()
}

// Addr is the proxy's address.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		silent := p.silent
		p.conns = append(p.conns, c)
		p.mu.Unlock()
		if silent {
			continue // held open, never answered
		}
		u, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, u)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(u, c); _ = u.Close() }()
		go func() { _, _ = io.Copy(c, u); _ = c.Close() }()
	}
}

// cut closes every connection through the proxy.
func (p *Proxy) cut() {
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
}

// Down closes the proxy's port and every connection through it.
func (p *Proxy) Down() {
	_ = p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut()
}

// Silence closes every connection through the proxy; new ones are
// accepted and never answered.
func (p *Proxy) Silence() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.silent = true
	p.cut()
}
