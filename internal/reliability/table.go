package reliability

import "strings"

// Table is a table of text cells, printed as Markdown: how the fault
// matrix and the chaos figures appear in test output and in
// docs/reliability.md.
type Table struct {
	Header []string
	Rows   [][]string
}

// Markdown renders the table as a GitHub-flavoured Markdown table. Pipes
// and newlines inside cells are escaped so a cell never breaks the table.
func (t Table) Markdown() string {
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			c = strings.ReplaceAll(c, "|", `\|`)
			c = strings.ReplaceAll(c, "\n", " ")
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n")
	}
	line(t.Header)
	sep := make([]string, len(t.Header))
	for i := range sep {
		sep[i] = "---"
	}
	line(sep)
	for _, r := range t.Rows {
		line(r)
	}
	return b.String()
}
