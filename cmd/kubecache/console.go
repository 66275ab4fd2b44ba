package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// console serializes the command's output: lines for stdout and for
// stderr come from several goroutines (the reflector's trace hook, the
// informer's handler, the demo's workload), and a status line (the
// progress of a long list) may sit at the bottom of stderr. Each line is
// written whole; the status line is cleared before a line is written and
// drawn again after.
type console struct {
	// mu guards the writers and status.
	mu             sync.Mutex
	stdout, stderr io.Writer
	// status is the status line on display, "" for none.
	status string
}

func newConsole(stdout, stderr io.Writer) *console {
	return &console{stdout: stdout, stderr: stderr}
}

// outf writes one line to stdout.
func (c *console) outf(format string, args ...any) { c.line(true, fmt.Sprintf(format, args...)) }

// errf writes one line to stderr.
func (c *console) errf(format string, args ...any) { c.line(false, fmt.Sprintf(format, args...)) }

// out writes bytes to stdout as they are (a printed table).
func (c *console) out(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLocked()
	c.stdout.Write(b)
	c.drawLocked()
}

func (c *console) line(toStdout bool, s string) {
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLocked()
	if toStdout {
		io.WriteString(c.stdout, s)
	} else {
		io.WriteString(c.stderr, s)
	}
	c.drawLocked()
}

// setStatus shows s as the status line on stderr; "" removes it.
func (c *console) setStatus(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLocked()
	c.status = s
	c.drawLocked()
}

// clearLocked erases the status line; c.mu is held.
func (c *console) clearLocked() {
	if c.status != "" {
		io.WriteString(c.stderr, "\r\033[K")
	}
}

// drawLocked draws the status line; c.mu is held.
func (c *console) drawLocked() {
	if c.status != "" {
		io.WriteString(c.stderr, "\r"+c.status)
	}
}

// isTerminal reports whether w is a terminal (a character device), where
// progress can be drawn and redrawn; a pipe or a file is not.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
