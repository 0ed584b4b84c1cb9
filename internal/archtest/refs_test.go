package archtest

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// sectionSign is "§", spelled so that this file holds no section reference of its own.
const sectionSign = "\u00a7"

// specDoc is the document a .go file's bare section reference means.
const specDoc = "docs/protocol.md"

var (
	// sectionRef is one section reference: the sign and a number such as 2, 2.6 or 11.3.
	sectionRef = regexp.MustCompile(sectionSign + ` ?([0-9]+(?:\.[0-9]+)*)`)
	// namedDoc is a document name just before a reference: "protocol.md ", "`protocol.md` ".
	namedDoc = regexp.MustCompile("([A-Za-z0-9_./-]+\\.md)`?\\s*$")
	// listSep joins the references of a list: "§2.4, §3.2", "§1 and §2".
	listSep = regexp.MustCompile(`^\s*(?:,|;|&|and|or)?\s*$`)
	// rfcRef is the end of text naming an RFC, whose sections are not ours ("RFC 7230 §3.2").
	rfcRef = regexp.MustCompile(`RFC ?[0-9]+\s*$`)
	// numberedHeading is a Markdown heading that starts with a section number.
	numberedHeading = regexp.MustCompile(`^#{1,6}\s+([0-9]+(?:\.[0-9]+)*)\.?(?:\s|$)`)
)

// reference is one section reference found in a file.
type reference struct {
	file    string // citing file, relative to the root
	line    int
	doc     string // the document as written, or the default ("" only in tests)
	named   bool   // doc was written in the text
	section string
}

// scanReferences finds the section references of one file's text. A reference takes the document
// named right before it, or the one of the reference before it when only a list separator lies
// between them, or else def.
func scanReferences(file, text, def string) []reference {
	var out []reference
	for i, line := range strings.Split(text, "\n") {
		prevEnd, prevDoc, prevNamed := -1, "", false
		for _, m := range sectionRef.FindAllStringSubmatchIndex(line, -1) {
			before := line[max(prevEnd, 0):m[0]]
			r := reference{file: file, line: i + 1, section: line[m[2]:m[3]]}
			switch {
			case namedDoc.MatchString(before):
				r.doc, r.named = namedDoc.FindStringSubmatch(before)[1], true
			case prevEnd >= 0 && listSep.MatchString(before):
				r.doc, r.named = prevDoc, prevNamed
			case rfcRef.MatchString(before):
				prevEnd = -1
				continue
			default:
				r.doc = def
			}
			out = append(out, r)
			prevEnd, prevDoc, prevNamed = m[1], r.doc, r.named
		}
	}
	return out
}

// headingNumbers returns the section numbers of a Markdown document's headings, outside fenced
// blocks.
func headingNumbers(text string) map[string]bool {
	nums := map[string]bool{}
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if f, info, ok := fenceLine(line); ok {
			switch {
			case fence == "":
				fence = f
			case f[0] == fence[0] && len(f) >= len(fence) && info == "":
				fence = ""
			}
			continue
		}
		if fence == "" {
			if m := numberedHeading.FindStringSubmatch(line); m != nil {
				nums[m[1]] = true
			}
		}
	}
	return nums
}

// resolveDoc finds the tracked document a reference names: relative to the citing file, to the
// root, or to docs/, else the only tracked document of that name.
func resolveDoc(r reference, docs map[string]map[string]bool) (string, bool) {
	for _, p := range []string{path.Join(path.Dir(r.file), r.doc), path.Clean(r.doc), path.Join("docs", r.doc)} {
		if _, ok := docs[p]; ok {
			return p, true
		}
	}
	var found []string
	for p := range docs {
		if path.Base(p) == path.Base(r.doc) {
			found = append(found, p)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return "", false
}

// checkReferences returns a message for every reference in files (path → text) that does not
// resolve.
func checkReferences(files map[string]string) []string {
	docs := map[string]map[string]bool{}
	for p, text := range files {
		if strings.HasSuffix(p, ".md") {
			docs[p] = headingNumbers(text)
		}
	}
	var out []string
	for p, text := range files {
		def := p // a .md file's bare references are to itself
		if strings.HasSuffix(p, ".go") {
			def = specDoc
		}
		for _, r := range scanReferences(p, text, def) {
			if msg := checkReference(r, docs); msg != "" {
				out = append(out, msg)
			}
		}
	}
	sort.Strings(out)
	return out
}

func checkReference(r reference, docs map[string]map[string]bool) string {
	cite := r.doc + " " + sectionSign + r.section
	if !r.named {
		cite = sectionSign + r.section + " (meaning " + r.doc + ")"
	}
	doc, ok := resolveDoc(r, docs)
	if !ok {
		return r.file + ":" + strconv.Itoa(r.line) + ": " + cite + ": no such document in the repository"
	}
	if !docs[doc][r.section] {
		return r.file + ":" + strconv.Itoa(r.line) + ": " + cite + ": " + doc + " has no heading numbered " + r.section
	}
	return ""
}

// TestSectionReferences fails on every section reference in a tracked .go or .md file whose
// document is missing or has no heading with its number.
func TestSectionReferences(t *testing.T) {
	root := moduleRoot(t)
	files := map[string]string{}
	for _, p := range trackedFiles(t, root) {
		if strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".md") {
			files[p] = readFile(t, root, p)
		}
	}
	if _, ok := files[specDoc]; !ok {
		t.Errorf("%s is not in the repository", specDoc)
	}
	for _, msg := range checkReferences(files) {
		t.Error(msg)
	}
}

// outsideRefs are the spellings of a path to the engineers' shared notes outside the repository.
var outsideRefs = []string{".." + "/shared", "shared" + "/reference"}

// TestNoOutsideReferences fails on any tracked text file that cites the shared notes outside the
// repository: the project's documents must stand on their own.
func TestNoOutsideReferences(t *testing.T) {
	root := moduleRoot(t)
	for _, p := range trackedFiles(t, root) {
		text := readFile(t, root, p)
		if strings.ContainsRune(text, 0) {
			continue // binary
		}
		for _, msg := range outsideReferences(p, text) {
			t.Error(msg)
		}
	}
}

func outsideReferences(file, text string) []string {
	var out []string
	for i, line := range strings.Split(text, "\n") {
		for _, s := range outsideRefs {
			if strings.Contains(line, s) {
				out = append(out, file+":"+strconv.Itoa(i+1)+": refers to "+s+", which is not part of the repository")
			}
		}
	}
	return out
}

// trackedFiles lists the repository's files, relative to root, with forward slashes: git's list
// when root is a git work tree, else every file outside hidden directories.
func trackedFiles(t *testing.T, root string) []string {
	t.Helper()
	if goBin, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command(goBin, "ls-files", "-z")
		cmd.Dir = root
		if out, err := cmd.Output(); err == nil {
			var files []string
			for _, p := range bytes.Split(out, []byte{0}) {
				if len(p) > 0 {
					files = append(files, string(p))
				}
			}
			return files
		}
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("list the repository's files: %v", err)
	}
	return files
}

func readFile(t *testing.T, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatalf("read %s: %v", rel, err)
	}
	return string(b)
}

func TestScanReferences(t *testing.T) {
	s := sectionSign
	text := "a (protocol.md " + s + "2.4, " + s + "3.2) and (`protocol.md` " + s + "1.4)\n" +
		"see docs/ha.md " + s + "7; bare " + s + "2.6.\n" +
		"RFC 7230 " + s + "3.2 is not ours, " + s + "11.3 is\n"
	got := scanReferences("x.go", text, specDoc)
	want := []reference{
		{"x.go", 1, "protocol.md", true, "2.4"},
		{"x.go", 1, "protocol.md", true, "3.2"},
		{"x.go", 1, "protocol.md", true, "1.4"},
		{"x.go", 2, "docs/ha.md", true, "7"},
		{"x.go", 2, specDoc, false, "2.6"},
		{"x.go", 3, specDoc, false, "11.3"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d references, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("reference %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestCheckReferences(t *testing.T) {
	s := sectionSign
	// A document the repository does not hold, spelled in parts so that a scan of the tree for
	// cited documents does not take this fixture for a citation.
	missing := "nope" + ".md"
	files := map[string]string{
		"docs/protocol.md": "# P\n## 1. Frames\n### 1.4 Types\n```\n## 9. not a heading\n```\nsee " + s + "1.4 and " + s + "9\n",
		"docs/ha.md":       "# HA\n## Roles\n" + "protocol.md " + s + "1 and " + s + "1.4; own " + s + "2\n",
		"pkg/a/a.go":       "// protocol.md " + s + "1.4, docs/protocol.md " + s + "1, " + s + "1.5, " + missing + " " + s + "1\n",
		"README.md":        "docs/ha.md " + s + "1\n",
	}
	want := []string{
		"README.md:1: docs/ha.md " + s + "1: docs/ha.md has no heading numbered 1",
		"docs/ha.md:3: " + s + "2 (meaning docs/ha.md): docs/ha.md has no heading numbered 2",
		"docs/protocol.md:7: " + s + "9 (meaning docs/protocol.md): docs/protocol.md has no heading numbered 9",
		"pkg/a/a.go:1: docs/protocol.md " + s + "1.5: docs/protocol.md has no heading numbered 1.5",
		"pkg/a/a.go:1: " + missing + " " + s + "1: no such document in the repository",
	}
	got := checkReferences(files)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestOutsideReferences(t *testing.T) {
	text := "ok\nsee " + outsideRefs[1] + "/protocol.md\nand " + outsideRefs[0] + "/x\n"
	got := outsideReferences("docs/sample", text)
	if len(got) != 2 || !strings.HasPrefix(got[0], "docs/sample:2: ") || !strings.HasPrefix(got[1], "docs/sample:3: ") {
		t.Errorf("got %q", got)
	}
}
