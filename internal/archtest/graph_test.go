package archtest

import (
	"fmt"
	"sort"
	"strings"
)

// The import graph is written in docs/architecture.md as fenced blocks. A block tagged "imports"
// holds the rules for every package's own files; one tagged "imports-test" holds the extra edges
// its _test.go files may use. One rule per line:
//
//	from, from -> to, to      the packages matched by from may import the module packages matched by to
//	from !-> to, to           ... must never import what to matches (also third-party imports)
//
// Paths are relative to the module; "x/..." is x and every package below it; "*" on the left is
// every package; "(none)" on the right is an empty list; on the right of a deny rule
// "third-party" is every import outside the standard library and the module, and a path with a
// dot in its first element names a third-party package. A line that starts with blanks continues
// the previous one; "#" starts a comment.

// ruleKind says whether a rule allows or denies edges.
type ruleKind int

const (
	allow ruleKind = iota
	deny
)

// rule is one line of a graph block.
type rule struct {
	kind ruleKind
	test bool // from an imports-test block
	from []string
	to   []string
	line int    // line in the document
	text string // the rule as written, continuation lines joined
}

func (r rule) String() string { return fmt.Sprintf("line %d: %s", r.line, r.text) }

// graph is every rule of the document.
type graph struct {
	rules []rule
}

// Fence tags of the graph blocks.
const (
	tagImports     = "imports"
	tagImportsTest = "imports-test"
)

// Keywords of the rules.
const (
	anyPackage = "*"
	noPackages = "(none)"
	thirdParty = "third-party"
)

// parseGraph reads the graph blocks of a Markdown document.
func parseGraph(doc string) (*graph, error) {
	p := graphParser{g: &graph{}}
	for i, raw := range strings.Split(doc, "\n") {
		if err := p.line(i+1, strings.TrimRight(raw, " \t\r")); err != nil {
			return nil, err
		}
	}
	if p.fence != "" {
		return nil, fmt.Errorf("a fenced block opened at line %d is not closed", p.opened)
	}
	if len(p.g.rules) == 0 {
		return nil, fmt.Errorf("no %q block found", "```"+tagImports)
	}
	return p.g, nil
}

// graphParser reads a document line by line.
type graphParser struct {
	g       *graph
	fence   string // the fence of the open block, "" outside blocks
	opened  int    // line of the open fence
	reading bool   // the open block is a graph block
	test    bool   // ... tagged imports-test
	pending *rule  // the rule being read (it may continue on the next lines)
}

func (p *graphParser) line(n int, line string) error {
	if fence, info, ok := fenceLine(line); ok {
		return p.atFence(n, fence, info)
	}
	if !p.reading {
		return nil
	}
	if c := strings.Index(line, "#"); c >= 0 {
		line = strings.TrimRight(line[:c], " \t")
	}
	switch {
	case strings.TrimSpace(line) == "":
		return nil
	case line[0] == ' ' || line[0] == '\t':
		if p.pending == nil {
			return fmt.Errorf("line %d: a continuation line with no rule before it", n)
		}
		p.pending.text += " " + strings.TrimSpace(line)
		return nil
	}
	if err := p.flush(); err != nil {
		return err
	}
	p.pending = &rule{test: p.test, line: n, text: line}
	return nil
}

// atFence opens a block, or closes the open one (a fence of the same character, at least as
// long, with no info string).
func (p *graphParser) atFence(n int, fence, info string) error {
	if p.fence == "" {
		p.fence, p.opened = fence, n
		p.reading = info == tagImports || info == tagImportsTest
		p.test = info == tagImportsTest
		return nil
	}
	if fence[0] != p.fence[0] || len(fence) < len(p.fence) || info != "" {
		return nil // a line of the block's content
	}
	p.fence, p.reading = "", false
	return p.flush()
}

func (p *graphParser) flush() error {
	r := p.pending
	p.pending = nil
	if r == nil {
		return nil
	}
	if err := r.parse(); err != nil {
		return err
	}
	p.g.rules = append(p.g.rules, *r)
	return nil
}

// fenceLine reports whether line opens or closes a fenced block, with its fence and info string.
func fenceLine(line string) (fence, info string, ok bool) {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(line, f) {
			n := len(line) - len(strings.TrimLeft(line, f[:1]))
			return line[:n], strings.TrimSpace(line[n:]), true
		}
	}
	return "", "", false
}

// parse splits the rule's text into its kind and package lists.
func (r *rule) parse() error {
	left, right, ok := strings.Cut(r.text, "!->")
	r.kind = deny
	if !ok {
		left, right, ok = strings.Cut(r.text, "->")
		r.kind = allow
	}
	if !ok {
		return fmt.Errorf("line %d: %q has neither -> nor !->", r.line, r.text)
	}
	r.from, r.to = splitList(left), splitList(right)
	if len(r.from) == 0 {
		return fmt.Errorf("line %d: %q names no package on the left", r.line, r.text)
	}
	if len(r.to) == 0 {
		return fmt.Errorf("line %d: %q names nothing on the right (write %s)", r.line, r.text, noPackages)
	}
	if len(r.to) == 1 && r.to[0] == noPackages {
		r.to = nil
	}
	for _, p := range append(append([]string(nil), r.from...), r.to...) {
		if p == noPackages || strings.Contains(p, " ") {
			return fmt.Errorf("line %d: %q: %q in a list (separate names with commas)", r.line, r.text, p)
		}
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// matches reports whether the pattern p names the module-relative package pkg.
func matches(p, pkg string) bool {
	if p == anyPackage {
		return true
	}
	if base, ok := strings.CutSuffix(p, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return p == pkg
}

func matchesAny(ps []string, pkg string) bool {
	for _, p := range ps {
		if matches(p, pkg) {
			return true
		}
	}
	return false
}

// goPackage is what `go list -json` says about one package.
type goPackage struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// importer is a package being checked: its module-relative path and imports.
type importer struct {
	rel, module string
	pkg         goPackage
}

// relPath returns the module-relative path of an import, and whether it is in the module.
func (im importer) relPath(imp string) (string, bool) {
	if imp == im.module {
		return ".", true
	}
	return strings.CutPrefix(imp, im.module+"/")
}

// isStandard reports whether an import path is in the standard library: its first element has no
// dot (the rule cmd/go uses for paths that need no module).
func isStandard(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return !strings.Contains(first, ".")
}

// check returns every violation of g by pkgs, sorted: edges no rule allows, edges a deny rule
// forbids, packages no rule covers, and rules that name no package of the module.
func (g *graph) check(module string, pkgs []goPackage) []string {
	var out []string
	rels := map[string]bool{}
	for _, p := range pkgs {
		im := importer{module: module, pkg: p}
		im.rel, _ = im.relPath(p.ImportPath)
		rels[im.rel] = true
		out = append(out, g.checkPackage(im)...)
	}
	out = append(out, g.staleRules(rels)...)
	sort.Strings(out)
	return out
}

func (g *graph) checkPackage(im importer) []string {
	var out []string
	if !g.covers(im.rel) {
		out = append(out, fmt.Sprintf("package %s is not in the graph: add a line %q", im.rel, im.rel+" -> ..."))
	}
	for _, imp := range im.pkg.Imports {
		out = append(out, g.checkEdge(im, imp, false)...)
	}
	seen := map[string]bool{}
	for _, imp := range append(append([]string(nil), im.pkg.TestImports...), im.pkg.XTestImports...) {
		if !seen[imp] {
			seen[imp] = true
			out = append(out, g.checkEdge(im, imp, true)...)
		}
	}
	return out
}

// covers reports whether a rule other than a "*" rule names pkg on its left.
func (g *graph) covers(pkg string) bool {
	for _, r := range g.rules {
		if r.kind == allow && !r.test {
			for _, p := range r.from {
				if p != anyPackage && matches(p, pkg) {
					return true
				}
			}
		}
	}
	return false
}

// checkEdge checks one import of a package's own files (test false) or of its tests.
func (g *graph) checkEdge(im importer, imp string, test bool) []string {
	who := im.rel
	if test {
		who += " (tests)"
	}
	rel, inModule := im.relPath(imp)
	var out []string
	if !test {
		for _, r := range g.rules {
			if r.kind == deny && matchesAny(r.from, im.rel) && denies(r, rel, imp, inModule) {
				out = append(out, fmt.Sprintf("%s imports %s: denied by %s", who, display(rel, imp, inModule), r))
			}
		}
	}
	if !inModule || rel == im.rel || g.allows(im.rel, rel, test) {
		return out
	}
	return append(out, fmt.Sprintf("%s imports %s: no rule allows it; the rules for %s are %s",
		who, rel, im.rel, g.rulesFor(im.rel, test)))
}

// display names an import as the graph does: module-relative when it is in the module.
func display(rel, imp string, inModule bool) string {
	if inModule {
		return rel
	}
	return imp
}

// denies reports whether a deny rule's right side matches an import: thirdParty, a third-party
// path (a dot in its first element), or a module-relative or standard library path.
func denies(r rule, rel, imp string, inModule bool) bool {
	for _, p := range r.to {
		switch {
		case p == thirdParty:
			if !inModule && !isStandard(imp) {
				return true
			}
		case inModule && isStandard(p):
			if matches(p, rel) {
				return true
			}
		case !inModule && matches(p, imp):
			return true
		}
	}
	return false
}

func (g *graph) allows(from, to string, test bool) bool {
	for _, r := range g.rules {
		if r.kind == allow && (!r.test || test) && matchesAny(r.from, from) && matchesAny(r.to, to) {
			return true
		}
	}
	return false
}

// rulesFor lists the allow rules that apply to a package, for an error message.
func (g *graph) rulesFor(pkg string, test bool) string {
	var rs []string
	for _, r := range g.rules {
		if r.kind == allow && (!r.test || test) && matchesAny(r.from, pkg) {
			rs = append(rs, "["+r.String()+"]")
		}
	}
	if len(rs) == 0 {
		return "none"
	}
	return strings.Join(rs, " ")
}

// staleRules names the paths of rules that match no package of the module: a typo, or a package
// that moved without its rule. (The right sides of deny rules may name anything.)
func (g *graph) staleRules(rels map[string]bool) []string {
	var out []string
	for _, r := range g.rules {
		names := r.from
		if r.kind == allow {
			names = append(append([]string(nil), r.from...), r.to...)
		}
		for _, p := range names {
			if p != anyPackage && !anyMatch(p, rels) {
				out = append(out, fmt.Sprintf("%s names %s, which is not a package of the module", r, p))
			}
		}
	}
	return out
}

func anyMatch(p string, rels map[string]bool) bool {
	for rel := range rels {
		if matches(p, rel) {
			return true
		}
	}
	return false
}
