package webview_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"
)

// A headless Chromium driven over the Chrome DevTools protocol: just
// enough of it to open a page, evaluate expressions in it, click where an
// element is and take a screenshot.

// chromiumFlags keep the browser quiet and local: no sandbox (tests run
// as root in containers), no GPU, no network of its own.
var chromiumFlags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-dev-shm-usage", "--hide-scrollbars", "--window-size=1280,1400",
	"--remote-debugging-port=0",
}

// findChromium returns the browser's path, or "" when there is none.
func findChromium() string {
	if p := os.Getenv("KUBECACHE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser is one Chromium process and a DevTools session on one page.
type browser struct {
	t       *testing.T
	cmd     *exec.Cmd
	output  *bytes.Buffer
	conn    *websocket.Conn
	session string
	readers sync.WaitGroup

	// mu guards the fields below, written by the reader goroutine.
	mu         sync.Mutex
	nextID     int64
	waiting    map[int64]chan cdpReply
	exceptions []string
	closed     error
}

// cdpReply is the answer to one command.
type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// startBrowser starts Chromium with a fresh profile and opens url in a new
// page. Cleanup kills every process it started (the whole process group)
// and waits for them. It skips the test when no Chromium is installed.
func startBrowser(ctx context.Context, t *testing.T, url string) *browser {
	t.Helper()
	bin := findChromium()
	if bin == "" {
		t.Skip("no chromium binary (apt-get install chromium, or set KUBECACHE_CHROMIUM): the page is not tested in a browser")
	}
	profile := t.TempDir()
	b := &browser{t: t, output: &bytes.Buffer{}, waiting: map[int64]chan cdpReply{}}
	b.cmd = exec.Command(bin, append(chromiumFlags, "--user-data-dir="+profile, "about:blank")...)
	b.cmd.Stdout, b.cmd.Stderr = b.output, b.output
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, b.cmd.Start(), "start %s", bin)
	t.Cleanup(b.stop)

	wsURL, err := devToolsURL(ctx, profile)
	require.NoError(t, err, "chromium's DevTools endpoint; its output:\n%s", b.output)
	b.conn, _, err = websocket.DefaultDialer.DialContext(ctx, wsURL, nil)
	require.NoError(t, err, "dial %s", wsURL)
	b.readers.Go(b.read)

	var target struct {
		TargetID string `json:"targetId"`
	}
	b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	b.call(ctx, b.session, "Runtime.enable", nil, nil)
	b.call(ctx, b.session, "Page.enable", nil, nil)
	b.call(ctx, b.session, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": 1400, "deviceScaleFactor": 1, "mobile": false}, nil)
	b.call(ctx, b.session, "Page.navigate", map[string]any{"url": url}, nil)
	return b
}

// devToolsURL waits for Chromium to write DevToolsActivePort into its
// profile (the port it picked, then the browser's path) and returns the
// browser's websocket address.
func devToolsURL(ctx context.Context, profile string) (string, error) {
	file := filepath.Join(profile, "DevToolsActivePort")
	for {
		b, err := os.ReadFile(file)
		if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); err == nil && len(lines) == 2 {
			return "ws://127.0.0.1:" + lines[0] + lines[1], nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("%s never appeared: %w", file, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// read dispatches the browser's messages: replies to their callers,
// exceptions thrown by the page to the list the test checks.
func (b *browser) read() {
	for {
		var msg struct {
			ID     int64           `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			cdpReply
		}
		if err := b.conn.ReadJSON(&msg); err != nil {
			b.mu.Lock()
			b.closed = err
			for id, ch := range b.waiting {
				close(ch)
				delete(b.waiting, id)
			}
			b.mu.Unlock()
			return
		}
		b.mu.Lock()
		switch {
		case msg.ID != 0:
			if ch, ok := b.waiting[msg.ID]; ok {
				ch <- msg.cdpReply
				delete(b.waiting, msg.ID)
			}
		case msg.Method == "Runtime.exceptionThrown":
			b.exceptions = append(b.exceptions, string(msg.Params))
		}
		b.mu.Unlock()
	}
}

// call sends one command and decodes its result into out (nil: ignore).
func (b *browser) call(ctx context.Context, session, method string, params any, out any) {
	b.t.Helper()
	require.NoError(b.t, b.try(ctx, session, method, params, out), "%s", method)
}

// try is call returning its error.
func (b *browser) try(ctx context.Context, session, method string, params any, out any) error {
	ch := make(chan cdpReply, 1)
	b.mu.Lock()
	if b.closed != nil {
		b.mu.Unlock()
		return b.closed
	}
	b.nextID++
	id := b.nextID
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	b.mu.Lock()
	err := b.conn.WriteJSON(msg)
	b.mu.Unlock()
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case r, ok := <-ch:
		switch {
		case !ok:
			return errors.New("the browser closed the connection")
		case r.Error != nil:
			return errors.New(r.Error.Message)
		case out != nil:
			return json.Unmarshal(r.Result, out)
		}
		return nil
	}
}

// eval evaluates a JavaScript expression in the page and decodes its
// value into out.
func (b *browser) eval(ctx context.Context, expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := b.try(ctx, b.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res); err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("%s: %s", expr, res.ExceptionDetails.Text)
	}
	if out == nil || len(res.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(res.Result.Value, out)
}

// await evaluates a boolean expression until it is true, failing the
// test with what it last saw when ctx ends first.
func (b *browser) await(ctx context.Context, what, expr string) {
	b.t.Helper()
	var last error
	for {
		var ok bool
		last = b.eval(ctx, expr, &ok)
		if last == nil && ok {
			return
		}
		select {
		case <-ctx.Done():
			var state, log string
			_ = b.eval(context.Background(), `document.querySelector("#state").dataset.state`, &state)
			_ = b.eval(context.Background(), `document.querySelector("#transitions").innerText`, &log)
			b.t.Fatalf("page never showed %s (%s): last error %v; state %q; transitions:\n%s", what, expr, last, state, log)
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// click presses and releases the left mouse button at the centre of the
// element sel selects, as a user would.
func (b *browser) click(ctx context.Context, sel string) {
	b.t.Helper()
	var at struct{ X, Y float64 }
	require.NoError(b.t, b.eval(ctx, fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.scrollIntoView({block: "center"});
		const r = e.getBoundingClientRect(); return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()`, sel), &at), "find %s", sel)
	for _, typ := range []string{"mouseMoved", "mousePressed", "mouseReleased"} {
		b.call(ctx, b.session, "Input.dispatchMouseEvent", map[string]any{"type": typ, "x": at.X, "y": at.Y, "button": "left", "clickCount": 1}, nil)
	}
}

// screenshot writes the page as a PNG.
func (b *browser) screenshot(ctx context.Context, path string) {
	b.t.Helper()
	var shot struct {
		Data []byte `json:"data"`
	}
	b.call(ctx, b.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot)
	require.NoError(b.t, os.WriteFile(path, shot.Data, 0o644))
}

// pageExceptions returns what the page threw.
func (b *browser) pageExceptions() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.exceptions...)
}

// stop closes the session and kills the browser's process group, then
// waits for the reader and the process.
func (b *browser) stop() {
	if b.conn != nil {
		b.conn.Close()
	}
	if b.cmd.Process != nil {
		_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
	}
	_ = b.cmd.Wait()
	b.readers.Wait()
}
