package rest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/watch"
)

// The fuzz target of the websocket watch path: a server's websocket
// messages carrying watch events, read back to back as one stream by
// websocketStream and split into events by the watch decoder. The
// messages cut events anywhere (an event may span messages, a message may
// hold several), some are fragmented into continuation frames or
// interleaved with pings, one may be binary, and the connection ends with
// a close frame of any code or with none.
//
// The property: the websocket path yields exactly the events the plain
// decoder finds in the concatenated text of the messages, with the same
// bound (MaxFrameSize), and it ends the same way — except that an end which
// is not a normal close (code 1000), or a binary message, is never a clean
// io.EOF.

// wsFrame encodes one server-to-client websocket frame (unmasked).
func wsFrame(fin bool, opcode byte, payload []byte) []byte {
	b0 := opcode
	if fin {
		b0 |= 0x80
	}
	out := []byte{b0}
	switch n := len(payload); {
	case n < 126:
		out = append(out, byte(n))
	case n < 1<<16:
		out = append(out, 126)
		out = binary.BigEndian.AppendUint16(out, uint16(n))
	default:
		out = append(out, 127)
		out = binary.BigEndian.AppendUint64(out, uint64(n))
	}
	return append(out, payload...)
}

// Websocket opcodes.
const (
	opContinuation = 0x0
	opText         = 0x1
	opBinary       = 0x2
	opClose        = 0x8
	opPing         = 0x9
)

// wsScript is what the fuzzed server sends.
type wsScript struct {
	messages [][]byte
	// binaryAt is the index of the message sent as binary, or -1.
	binaryAt int
	// fragment and ping say, per message (bit i), whether it is sent in
	// two frames and whether a ping precedes it.
	fragment, ping uint32
	// closeCode ends the connection with a close frame of that code, or
	// with none (the socket just closes) when 0.
	closeCode uint16
}

// bytes is the wire form of the script after the handshake.
func (s wsScript) bytes() []byte {
	var out []byte
	for i, m := range s.messages {
		if i < 32 && s.ping&(1<<i) != 0 {
			out = append(out, wsFrame(true, opPing, []byte("p"))...)
		}
		op := byte(opText)
		if i == s.binaryAt {
			op = opBinary
		}
		if i < 32 && s.fragment&(1<<i) != 0 && len(m) > 1 {
			out = append(out, wsFrame(false, op, m[:len(m)/2])...)
			out = append(out, wsFrame(true, opContinuation, m[len(m)/2:])...)
			continue
		}
		out = append(out, wsFrame(true, op, m)...)
	}
	if s.closeCode != 0 {
		out = append(out, wsFrame(true, opClose, binary.BigEndian.AppendUint16(nil, s.closeCode))...)
	}
	return out
}

// splitMessages cuts payload into messages at the lengths cuts gives, one
// byte each; what is left is the last message.
func splitMessages(payload, cuts []byte) [][]byte {
	var out [][]byte
	for _, c := range cuts {
		n := min(int(c), len(payload))
		out = append(out, payload[:n])
		payload = payload[n:]
	}
	return append(out, payload)
}

// serveWebsocket accepts one connection on ln, answers its handshake and
// sends wire, then ends its side of the connection (FIN) and reads what
// the client sends (pongs, its close frame) until the client closes.
func serveWebsocket(ln net.Listener, wire []byte) {
	conn, err := ln.Accept()
	if err != nil {
		return
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	h := sha1.Sum([]byte(req.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	resp := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
		base64.StdEncoding.EncodeToString(h[:]) + "\r\n\r\n"
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		_, _ = io.Copy(io.Discard, br)
	}()
	if _, err := conn.Write(append([]byte(resp), wire...)); err == nil {
		// The end of the script is the end of the server's stream.
		_ = conn.(*net.TCPConn).CloseWrite()
	}
	<-drained
}

// decoded is what a decoder found: the frames, then how it ended.
type decoded struct {
	frames []string
	err    error
}

func decodeAll(r io.Reader, opts watch.DecoderOptions) decoded {
	dec := watch.NewDecoder(r, opts)
	var d decoded
	for {
		f, err := dec.Next()
		if err != nil {
			d.err = err
			return d
		}
		d.frames = append(d.frames, string(f.Type)+" "+string(f.Object))
	}
}

// endKind classifies how a decoder ended.
func endKind(err error) string {
	var syntax *watch.SyntaxError
	switch {
	case err == io.EOF:
		return "eof"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected eof"
	case errors.As(err, &syntax):
		return "syntax"
	case errors.Is(err, watch.ErrFrameTooLarge):
		return "too large"
	case errors.Is(err, watch.ErrTransport):
		return "transport"
	}
	return "other: " + err.Error()
}

// readWebsocket runs script against a websocketStream over loopback and
// decodes it.
func readWebsocket(t *testing.T, ln net.Listener, script wsScript, opts watch.DecoderOptions) decoded {
	served := make(chan struct{})
	go func() {
		defer close(served)
		serveWebsocket(ln, script.bytes())
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	conn, resp, err := d.DialContext(ctx, "ws://"+ln.Addr().String()+"/api/v1/pods?watch=true", nil)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	require.NoError(t, err)
	s := &websocketStream{conn: conn}
	got := decodeAll(s, opts)
	s.Close()
	<-served
	return got
}

func FuzzWebsocketWatch(f *testing.F) {
	ev := func(name string) string {
		return `{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"` + name + `","resourceVersion":"5"}}}` + "\n"
	}
	two := ev("a") + ev("b")
	// payload, cuts, binaryAt, fragment, ping, closeCode, maxFrame
	f.Add([]byte(two), []byte{}, int8(-1), uint32(0), uint32(0), uint16(1000), uint32(0))
	f.Add([]byte(two), []byte{byte(len(ev("a")))}, int8(-1), uint32(0), uint32(0), uint16(1000), uint32(0))
	f.Add([]byte(two), []byte{10, 30, 0, 7}, int8(-1), uint32(0b101), uint32(0b10), uint16(1000), uint32(0))
	f.Add([]byte(two), []byte{40}, int8(-1), uint32(0), uint32(0), uint16(0), uint32(0))
	f.Add([]byte(two), []byte{40}, int8(-1), uint32(0), uint32(0), uint16(1001), uint32(0))
	f.Add([]byte(two), []byte{40}, int8(-1), uint32(0), uint32(0), uint16(1011), uint32(0))
	f.Add([]byte(two), []byte{byte(len(ev("a")))}, int8(1), uint32(0), uint32(0), uint16(1000), uint32(0))
	f.Add([]byte(two), []byte{}, int8(-1), uint32(0), uint32(0), uint16(1000), uint32(64))
	f.Add([]byte(ev("a")+`{"type":"MODIFIED","object":{not json}`+"\n"), []byte{}, int8(-1), uint32(0), uint32(0), uint16(1000), uint32(0))
	f.Add([]byte(`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410}}`), []byte{3}, int8(-1), uint32(1), uint32(1), uint16(1000), uint32(0))
	f.Add([]byte(ev("a")[:50]), []byte{}, int8(-1), uint32(0), uint32(0), uint16(1000), uint32(0))
	f.Add([]byte{}, []byte{0, 0}, int8(-1), uint32(0), uint32(0), uint16(1000), uint32(0))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(f, err)
	f.Cleanup(func() { ln.Close() })
	f.Fuzz(func(t *testing.T, payload, cuts []byte, binaryAt int8, fragment, ping uint32, closeCode uint16, maxFrame uint32) {
		if len(payload) > 1<<16 || len(cuts) > 64 {
			return
		}
		script := wsScript{messages: splitMessages(payload, cuts), binaryAt: int(binaryAt), fragment: fragment, ping: ping, closeCode: closeCode}
		// A bound of 0 is the default; small bounds make frames too large.
		opts := watch.DecoderOptions{MaxFrameSize: int(maxFrame % 4096)}

		// The reference: the text the messages carry, up to a binary one.
		var text bytes.Buffer
		for i, m := range script.messages {
			if i == script.binaryAt {
				break
			}
			text.Write(m)
		}
		want := decodeAll(&text, opts)
		got := readWebsocket(t, ln, script, opts)

		wantEnd, gotEnd := endKind(want.err), endKind(got.err)
		clean := closeCode == websocket.CloseNormalClosure && (script.binaryAt < 0 || script.binaryAt >= len(script.messages))
		switch {
		case clean || wantEnd == "syntax" || wantEnd == "too large":
			// The same bytes, the same end.
			assert.Equal(t, want.frames, got.frames)
			assert.Equal(t, wantEnd, gotEnd, "got %v, want %v", got.err, want.err)
		default:
			// The connection ended badly where the reference ends: the
			// frames before are the same, and the end is a transport
			// error, never a clean end of stream.
			assert.Equal(t, want.frames, got.frames)
			assert.Equal(t, "transport", gotEnd, "got %v (the reference ended with %v)", got.err, want.err)
		}
		if script.binaryAt >= 0 && script.binaryAt < len(script.messages) && gotEnd == "transport" {
			assert.ErrorIs(t, got.err, errBinaryMessage)
		}
	})
}
