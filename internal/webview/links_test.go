package webview_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTourLinksReachHeadings checks that every link of the page into
// docs/tour.md names a heading the tour has (GitHub's anchor of it), so a
// renamed stop cannot leave a panel pointing nowhere.
func TestTourLinksReachHeadings(t *testing.T) {
	page, err := os.ReadFile("static/index.html")
	require.NoError(t, err)
	tour, err := os.ReadFile("../../docs/tour.md")
	require.NoError(t, err)

	anchors := map[string]bool{}
	for _, line := range strings.Split(string(tour), "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			anchors[githubAnchor(h)] = true
		}
	}
	links := regexp.MustCompile(`docs/tour\.md#([a-z0-9-]+)`).FindAllStringSubmatch(string(page), -1)
	require.NotEmpty(t, links, "the page links to the tour")
	for _, l := range links {
		assert.True(t, anchors[l[1]], "the page links to docs/tour.md#%s, which is no heading of the tour", l[1])
	}
}

// githubAnchor is the anchor GitHub gives a heading: lower case, spaces
// to hyphens, punctuation dropped.
func githubAnchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}
