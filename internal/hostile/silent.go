package hostile

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
)

// Silent is a TCP listener on 127.0.0.1 that accepts every connection,
// reads whatever the client sends and never writes a byte: a server that
// took the request and will never answer it.
type Silent struct {
	l        net.Listener
	accepted atomic.Int64
	wg       sync.WaitGroup

	mu     sync.Mutex
	conns  []net.Conn
	closed bool
}

// NewSilent starts a Silent listener. The caller closes it.
func NewSilent() (*Silent, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Silent{l: l}
	s.wg.Add(1)
	go s.serve()
	return s, nil
}

// URL returns "http://<addr>".
func (s *Silent) URL() string { return "http://" + s.l.Addr().String() }

// Accepted returns how many connections were accepted.
func (s *Silent) Accepted() int64 { return s.accepted.Load() }

func (s *Silent) serve() {
	defer s.wg.Done()
	for {
		c, err := s.l.Accept()
		if err != nil {
			return
		}
		s.accepted.Add(1)
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns = append(s.conns, c)
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			_, _ = io.Copy(io.Discard, c)
		}()
	}
}

// Close stops listening, closes every accepted connection and waits for
// the goroutines reading them.
func (s *Silent) Close() error {
	err := s.l.Close()
	s.mu.Lock()
	s.closed = true
	for _, c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}
