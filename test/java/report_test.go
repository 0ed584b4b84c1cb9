package javatest

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// suite is one surefire report (target/surefire-reports/TEST-<class>.xml).
type suite struct {
	Name  string     `xml:"name,attr"`
	Cases []testCase `xml:"testcase"`
}

type testCase struct {
	Name      string   `xml:"name,attr"`
	ClassName string   `xml:"classname,attr"`
	Time      string   `xml:"time,attr"`
	Failure   *problem `xml:"failure"`
	Error     *problem `xml:"error"`
	Skipped   *problem `xml:"skipped"`
}

type problem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Trace   string `xml:",chardata"`
}

// result is one scenario of one client version.
type result struct {
	version string
	testCase
}

func (r result) name() string {
	return fmt.Sprintf("%s %s.%s", r.version, strings.TrimPrefix(r.ClassName, "org.rocketgo.javatest."), r.Name)
}

// readReports reads every surefire report of both modules, sorted by version and name.
func readReports(t *testing.T, dir string) []result {
	t.Helper()
	var all []result
	for _, v := range versions {
		paths, _ := filepath.Glob(filepath.Join(moduleDir(dir, v), "target", "surefire-reports", "TEST-*.xml"))
		for _, path := range paths {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("javatest: %v", err)
			}
			var s suite
			if err := xml.Unmarshal(b, &s); err != nil {
				t.Fatalf("javatest: %s: %v", path, err)
			}
			for _, c := range s.Cases {
				all = append(all, result{version: v, testCase: c})
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].name() < all[j].name() })
	return all
}

// logResults logs one line per scenario: passed, skipped (with the reason) or failed.
func logResults(t *testing.T, results []result) {
	t.Helper()
	var sb strings.Builder
	for _, r := range results {
		switch {
		case r.Failure != nil || r.Error != nil:
			fmt.Fprintf(&sb, "FAIL %s (%ss)\n", r.name(), r.Time)
		case r.Skipped != nil:
			fmt.Fprintf(&sb, "SKIP %s: %s\n", r.name(), r.Skipped.Message)
		default:
			fmt.Fprintf(&sb, "PASS %s (%ss)\n", r.name(), r.Time)
		}
	}
	t.Logf("javatest: %d scenarios\n%s", len(results), sb.String())
}

// checkResults fails the test with every failed scenario's message and stack trace, and when the
// build failed or a client version ran no scenario at all.
func checkResults(t *testing.T, results []result, runErr error) {
	t.Helper()
	ran := map[string]int{}
	for _, r := range results {
		ran[r.version]++
		p := r.Failure
		if p == nil {
			p = r.Error
		}
		if p != nil {
			t.Errorf("javatest: %s failed: %s: %s\n%s", r.name(), p.Type, p.Message, clip(p.Trace, 4000))
		}
	}
	for _, v := range versions {
		if ran[v] == 0 {
			t.Errorf("javatest: no surefire report for rocketmq-client %s: its module did not run", v)
		}
	}
	if runErr != nil {
		t.Errorf("javatest: the Maven build failed: %v", runErr)
	}
}

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "\n..."
	}
	return s
}
