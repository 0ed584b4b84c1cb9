package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// architectureDoc holds the import graph, relative to the module root.
const architectureDoc = "docs/architecture.md"

// TestImportGraph fails on every import edge between module packages that the graph in
// docs/architecture.md does not allow, on every import a deny rule forbids, on packages the graph
// does not name, and on rules that name no package.
func TestImportGraph(t *testing.T) {
	root := moduleRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, architectureDoc))
	if err != nil {
		t.Fatalf("read the import graph: %v", err)
	}
	g, err := parseGraph(string(doc))
	if err != nil {
		t.Fatalf("%s: %v", architectureDoc, err)
	}
	module := strings.TrimSpace(goCommand(t, root, "list", "-m"))
	pkgs := listPackages(t, root)
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	for _, v := range g.check(module, pkgs) {
		t.Errorf("%s: %s", architectureDoc, v)
	}
}

// moduleRoot is the directory of the module's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	gomod := strings.TrimSpace(goCommand(t, ".", "env", "GOMOD"))
	if gomod == "" || gomod == os.DevNull {
		t.Fatal("not inside a Go module")
	}
	return filepath.Dir(gomod)
}

// goCommand runs the go command in dir and returns its standard output.
func goCommand(t *testing.T, dir string, args ...string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the packages: %v", err)
	}
	cmd := exec.Command(goBin, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// listPackages returns every package of the module as `go list -json ./...` describes it.
func listPackages(t *testing.T, root string) []goPackage {
	t.Helper()
	out := goCommand(t, root, "list", "-json", "./...")
	var pkgs []goPackage
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var p goPackage
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			return pkgs
		}
		if err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
}

// testGraph is a small graph in the document syntax, for the checker's own tests.
const testGraph = "# Architecture\n\n```go\nx -> y // not a graph block\n```\n\n```" + tagImports + `
# comment
cmd/a -> internal/b   # a comment after a rule
internal/b, internal/c -> pkg/p/...,
    internal/d
internal/d -> (none)
pkg/p/... -> (none)
* -> internal/life
internal/life -> (none)
pkg/p/... !-> third-party, internal/...
internal/b !-> github.com/spf13/cobra/..., net/http
` + "```\n\ntext\n\n```" + tagImportsTest + `
internal/d -> internal/c
` + "```\n"

const mod = "example.com/m"

// m is the import path of a package of the test module.
func m(rel string) string { return mod + "/" + rel }

func pkg(rel string, imports []string, testImports ...string) goPackage {
	return goPackage{ImportPath: m(rel), Imports: imports, XTestImports: testImports}
}

func TestParseGraph(t *testing.T) {
	g, err := parseGraph(testGraph)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.rules) != 9 {
		t.Fatalf("parsed %d rules, want 9: %v", len(g.rules), g.rules)
	}
	r := g.rules[1]
	if r.kind != allow || strings.Join(r.from, "|") != "internal/b|internal/c" || strings.Join(r.to, "|") != "pkg/p/...|internal/d" {
		t.Errorf("continued rule parsed as %+v", r)
	}
	if g.rules[2].to != nil {
		t.Errorf("(none) parsed as %q", g.rules[2].to)
	}
	if g.rules[6].kind != deny || !g.rules[8].test || g.rules[0].test {
		t.Errorf("kinds or blocks wrong: %+v", g.rules)
	}
	for _, bad := range []string{
		"```imports\na b\n```\n",          // no arrow
		"```imports\n  -> a\n```\n",       // continuation first
		"```imports\na ->\n```\n",         // empty right side
		"```imports\na -> b c\n```\n",     // missing comma
		"```imports\na -> b\n",            // not closed
		"```text\na -> b\n```\n",          // no graph block
		"```imports\na -> (none), b\n```", // (none) in a list
	} {
		if _, err := parseGraph(bad); err == nil {
			t.Errorf("parseGraph(%q) accepted it", bad)
		}
	}
}

func TestCheckGraph(t *testing.T) {
	g, err := parseGraph(testGraph)
	if err != nil {
		t.Fatal(err)
	}
	ok := []goPackage{
		pkg("cmd/a", []string{m("internal/b"), "fmt", "github.com/x/y"}),
		pkg("internal/b", []string{m("pkg/p"), m("internal/d"), m("internal/life")}),
		pkg("internal/c", []string{m("pkg/p/q")}),
		pkg("internal/d", nil, m("internal/d"), m("internal/c")),
		pkg("internal/life", nil),
		pkg("pkg/p", []string{"strings"}),
		pkg("pkg/p/q", nil, "github.com/stretchr/testify/require"),
	}
	if v := g.check(mod, ok); len(v) != 0 {
		t.Fatalf("a conforming tree has violations:\n%s", strings.Join(v, "\n"))
	}
	bad := append(ok[:0:0], ok...)
	bad[0] = pkg("cmd/a", []string{m("internal/b"), m("internal/d")})          // an edge no rule allows
	bad[1] = pkg("internal/b", []string{"github.com/spf13/cobra", "net/http"}) // denied: third-party and std
	bad[2] = pkg("internal/c", []string{m("pkg/p")}, m("cmd/a"))               // a test edge no rule allows
	bad[5] = pkg("pkg/p", []string{"github.com/x/y", m("internal/life")})      // denied twice
	bad = append(bad, pkg("internal/new", nil))                                // not in the graph
	want := []string{
		"cmd/a imports internal/d: no rule allows it; the rules for cmd/a are [line 9: cmd/a -> internal/b] [line 14: * -> internal/life]",
		"internal/b imports github.com/spf13/cobra: denied by line 17: internal/b !-> github.com/spf13/cobra/..., net/http",
		"internal/b imports net/http: denied by line 17",
		"internal/c (tests) imports cmd/a: no rule allows it; the rules for internal/c are [line 10: internal/b, internal/c -> pkg/p/..., internal/d] [line 14",
		"package internal/new is not in the graph",
		"pkg/p imports github.com/x/y: denied by line 16",
		"pkg/p imports internal/life: denied by line 16",
	}
	got := g.check(mod, bad)
	if len(got) != len(want) {
		t.Fatalf("got %d violations, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("violation %d:\n got  %s\n want %s...", i, got[i], want[i])
		}
	}
	stale := g.check(mod, ok[1:]) // cmd/a is gone, its rule is not
	if len(stale) != 1 || !strings.HasPrefix(stale[0], "line 9: cmd/a -> internal/b names cmd/a, which is not a package") {
		t.Errorf("a stale rule gives %q", stale)
	}
}
