package webview_test

import (
	"flag"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/reflector"
)

// screenshots, when set, is a directory the browser test writes the
// page's screenshots to (for the README).
var screenshots = flag.String("webview.screenshots", "", "write screenshots of the page into this directory")

// TestPageInChromium opens the page in a real headless Chromium and uses
// it as a learner would: the diagram reaches Watching, the store's count
// matches the server's, a fault button pressed in the page shows the
// reflector backing off and watching again, another one a 410 and its
// relist, new objects reach the table, the filter filters and the slider
// reaches the server.
func TestPageInChromium(t *testing.T) {
	rates := make(chan float64, 1)
	e := newEnv(t, envOptions{
		objects:  30,
		backoff:  reflector.Backoff{Initial: time.Second, Max: time.Second, Jitter: reflector.NoJitter},
		controls: testControls(rates),
	})
	b := startBrowser(e.ctx, t, e.url)

	b.await(e.ctx, "the connection", `document.body.dataset.connected === "true"`)
	b.await(e.ctx, "Watching", `document.querySelector("#state").dataset.state === "Watching"`)
	b.await(e.ctx, "the lit Watching node", `document.querySelector("#n-Watching").classList.contains("lit")`)
	want := e.serverCount()
	require.Equal(t, 30, want)
	b.await(e.ctx, fmt.Sprintf("a store count of %d", want), fmt.Sprintf(`document.querySelector("#store-count").textContent === "%d"`, want))
	b.await(e.ctx, "the table's rows", fmt.Sprintf(`document.querySelectorAll("#objects tbody tr").length === %d`, want))
	b.await(e.ctx, "how fresh the store is", `document.querySelector("#store-fresh").textContent.startsWith("heard from the server ") && !document.querySelector("#store-fresh").textContent.endsWith("—")`)
	b.await(e.ctx, "the handler", `document.querySelector('#handler-table tr[data-handler="configmaps/count"] td:nth-child(2)').textContent === "yes"`)
	if *screenshots != "" {
		b.screenshot(e.ctx, filepath.Join(*screenshots, "watching.png"))
	}

	b.await(e.ctx, "the fault button", `document.querySelector('button[data-fault="cut"]') !== null`)
	b.click(e.ctx, `button[data-fault="cut"]`)
	b.await(e.ctx, "BackingOff", `document.querySelector("#state").dataset.state === "BackingOff"`)
	b.await(e.ctx, "the lit BackingOff node", `document.querySelector("#n-BackingOff").classList.contains("lit")`)
	// A cut within a second of the watch's start, before any event, is
	// a watch closed at once; later, a reset connection.
	b.await(e.ctx, "the reason", `/Watching → BackingOff (connection reset|watch closed at once) · back-off 1s/.test(document.querySelector("#transitions").innerText)`)
	if *screenshots != "" {
		b.screenshot(e.ctx, filepath.Join(*screenshots, "backing-off.png"))
	}
	b.await(e.ctx, "Watching again", `document.querySelector("#state").dataset.state === "Watching"`)
	b.await(e.ctx, "the reconnect", `document.querySelector("#transitions").innerText.includes("BackingOff → Watching")`)

	for i := range 5 {
		e.create(fmt.Sprintf("new-%d", i))
	}
	want = e.serverCount()
	require.Equal(t, 35, want)
	b.await(e.ctx, fmt.Sprintf("a store count of %d", want), fmt.Sprintf(`document.querySelector("#store-count").textContent === "%d"`, want))
	b.await(e.ctx, "the new object in the table", `document.querySelector('#objects tr[data-key="web/new-4"]') !== null`)

	b.click(e.ctx, "#filter")
	b.call(e.ctx, b.session, "Input.insertText", map[string]any{"text": "new-"}, nil)
	b.await(e.ctx, "the filtered table", `document.querySelectorAll("#objects tbody tr").length === 5`)

	b.click(e.ctx, `button[data-fault="compact"]`)
	b.await(e.ctx, "the 410", `document.querySelector("#transitions").innerText.includes("Watching → Listing 410 Expired · relist")`)
	b.await(e.ctx, "the relist counted", `document.querySelector('dd[data-count="relists"]').textContent === "1"`)
	b.await(e.ctx, "Watching after the relist", `document.querySelector("#state").dataset.state === "Watching"`)
	b.await(e.ctx, fmt.Sprintf("a store count of %d after the relist", want), fmt.Sprintf(`document.querySelector("#store-count").textContent === "%d"`, want))

	require.NoError(t, b.eval(e.ctx, `(() => { const s = document.querySelector('input[data-slider="rate"]');
		s.value = 40; s.dispatchEvent(new Event("change")); return true; })()`, nil))
	select {
	case v := <-rates:
		assert.Equal(t, 40.0, v, "the slider's value reaches the server")
	case <-e.ctx.Done():
		t.Fatal("the slider's value never reached the server")
	}

	assert.Empty(t, b.pageExceptions(), "the page threw:\n%s", lines(b.pageExceptions()))
}
