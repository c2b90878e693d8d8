package serving

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"
)

// tlsListener accepts TCP connections, admits them through a connCap and hands
// net/http only connections whose TLS handshake is done. Handshakes are where an
// attacker who opens connections makes the server spend CPU (key exchange,
// signing): they wait for their ClientHello without a goroutine doing work, and
// then at most handshakeSlots of them compute at once, so a flood of handshakes
// queues behind itself instead of crowding out the requests on the connections
// already open (the API server's keep-alive ones).
type tlsListener struct {
	tcp     net.Listener
	conf    *tls.Config
	cap     *connCap
	timeout time.Duration
	slots   *semaphore.Weighted

	ready     chan net.Conn
	done      chan struct{}
	closeOnce sync.Once
	err       error
}

// newTLSListener starts accepting on tcp; handshakes must finish within timeout
// and at most slots compute at once.
func newTLSListener(tcp net.Listener, conf *tls.Config, cc *connCap, timeout time.Duration, slots int) *tlsListener {
	l := &tlsListener{tcp: tcp, conf: conf, cap: cc, timeout: timeout, slots: semaphore.NewWeighted(int64(max(slots, 1))),
		ready: make(chan net.Conn), done: make(chan struct{})}
	go l.acceptLoop()
	return l
}

func (l *tlsListener) acceptLoop() {
	for {
		c, err := l.tcp.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				l.stop(err)
				return
			}
			// Out of file descriptors and the like: pause, as net/http does.
			select {
			case <-l.done:
				return
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		g := &gatedConn{Conn: c}
		tc := tls.Server(g, l.conf)
		if !l.cap.admit(tc) {
			_ = c.Close()
			continue
		}
		go l.handshake(tc, g)
	}
}

// handshake waits for the ClientHello's whole first record, then for a slot, and
// runs the handshake; the slot is given back as soon as the server's flight is
// written (the work is done; what follows is waiting for the client). A client
// that sends part of its ClientHello and stalls holds no slot.
func (l *tlsListener) handshake(tc *tls.Conn, g *gatedConn) {
	deadline := time.Now().Add(l.timeout)
	_ = g.SetDeadline(deadline)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	ok := func() bool {
		if err := g.readFirstRecord(); err != nil {
			return false
		}
		if err := l.slots.Acquire(ctx, 1); err != nil {
			return false
		}
		var once sync.Once
		release := func() { once.Do(func() { l.slots.Release(1) }) }
		g.setAfterWrite(release)
		defer release()
		return tc.HandshakeContext(ctx) == nil
	}()
	if ok {
		_ = g.SetDeadline(time.Time{})
		select {
		case l.ready <- tc:
			return
		case <-l.done:
		}
	}
	_ = tc.Close()
	l.cap.forget(tc)
}

// Accept returns the next connection whose handshake is done.
func (l *tlsListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ready:
		return c, nil
	case <-l.done:
		return nil, l.err
	}
}

func (l *tlsListener) stop(err error) {
	l.closeOnce.Do(func() {
		l.err = err
		close(l.done)
	})
}

// Close stops accepting; connections still in their handshake are closed.
func (l *tlsListener) Close() error {
	err := l.tcp.Close()
	l.stop(net.ErrClosed)
	return err
}

// Addr is the TCP listener's address.
func (l *tlsListener) Addr() net.Addr { return l.tcp.Addr() }

// maxFirstRecord bounds the first TLS record read ahead of the handshake: a
// record is at most 16 KiB of plaintext (RFC 8446, 5.1), plus a little.
const maxFirstRecord = 16<<10 + 256

// gatedConn is a TCP connection whose first TLS record is read ahead of the
// handshake (readFirstRecord) and handed to it first, and whose first write after
// setAfterWrite calls the function set.
type gatedConn struct {
	net.Conn
	prefix     []byte
	mu         sync.Mutex
	afterWrite func()
}

// readFirstRecord reads the client's first TLS record (its ClientHello): a
// handshake record's 5-byte header, then its body.
func (g *gatedConn) readFirstRecord() error {
	hdr := make([]byte, 5)
	if _, err := io.ReadFull(g.Conn, hdr); err != nil {
		return err
	}
	n := int(hdr[3])<<8 | int(hdr[4])
	if hdr[0] != 0x16 || n > maxFirstRecord {
		g.prefix = hdr // the handshake fails on it with TLS's own alert
		return nil
	}
	rec := make([]byte, 5+n)
	copy(rec, hdr)
	if _, err := io.ReadFull(g.Conn, rec[5:]); err != nil {
		return err
	}
	g.prefix = rec
	return nil
}

func (g *gatedConn) Read(p []byte) (int, error) {
	if len(g.prefix) > 0 {
		n := copy(p, g.prefix)
		g.prefix = g.prefix[n:]
		if len(g.prefix) == 0 {
			g.prefix = nil
		}
		return n, nil
	}
	return g.Conn.Read(p)
}

func (g *gatedConn) Write(p []byte) (int, error) {
	n, err := g.Conn.Write(p)
	g.mu.Lock()
	f := g.afterWrite
	g.afterWrite = nil
	g.mu.Unlock()
	if f != nil {
		f()
	}
	return n, err
}

func (g *gatedConn) setAfterWrite(f func()) {
	g.mu.Lock()
	g.afterWrite = f
	g.mu.Unlock()
}
