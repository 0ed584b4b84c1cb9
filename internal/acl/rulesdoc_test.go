package acl

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	rulesBegin = "<!-- acl-rules:begin (rendered from internal/acl/rules.go; TestRulesDoc) -->\n"
	rulesEnd   = "<!-- acl-rules:end -->"
)

var updateDocs = flag.Bool("update", false, "rewrite the rule table of docs/security.md")

// TestRulesDoc keeps the table of docs/security.md §1.5 the rule table's rendering; -update
// rewrites it instead.
func TestRulesDoc(t *testing.T) {
	const path = "../../docs/security.md"
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	doc := string(data)
	i, j := strings.Index(doc, rulesBegin), strings.Index(doc, rulesEnd)
	require.True(t, i >= 0 && j > i, "docs/security.md lacks the acl-rules markers")
	want := doc[:i+len(rulesBegin)] + RulesTable() + doc[j:]
	if *updateDocs {
		require.NoError(t, os.WriteFile(path, []byte(want), 0o644))
		return
	}
	require.Equal(t, want, doc, "docs/security.md's rule table is stale: run go test ./internal/acl -run TestRulesDoc -update")
}

// TestEveryRuleSaysSomething: a rule that needs nothing beyond the signature must say what its
// service checks after its read, so that no code is open by accident.
func TestEveryRuleSaysSomething(t *testing.T) {
	for code, r := range rules {
		require.True(t, r.admin || len(r.needs) > 0 || r.body != nil || r.after != "", "code %d: an empty rule", code)
		require.Equal(t, r.body != nil, r.bodyDoc != "", "code %d: a body check and its description go together", code)
	}
}
