package config

import (
	"encoding"
	"flag"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var updateDocs = flag.Bool("update", false, "rewrite the key tables of docs/configuration.md")

const configurationDoc = "../../docs/configuration.md"

// TestConfigurationDoc: the key tables of docs/configuration.md are the key tables of this
// package, rendered. After changing an entry run
// go test ./internal/config -run TestConfigurationDoc -update.
func TestConfigurationDoc(t *testing.T) {
	data, err := os.ReadFile(configurationDoc)
	require.NoError(t, err)
	doc := string(data)
	for _, part := range []struct{ name, text string }{
		{"broker.conf", renderKeys(brokerKeys())},
		{"namesrv.conf", renderKeys(namesrvKeys())},
	} {
		begin := "<!-- BEGIN KEYS " + part.name + ": generated from internal/config; edit the entries there -->\n"
		end := "<!-- END KEYS " + part.name + " -->"
		i, j := strings.Index(doc, begin), strings.Index(doc, end)
		require.True(t, i >= 0 && j > i, "docs/configuration.md lacks the markers %q ... %q", begin, end)
		doc = doc[:i+len(begin)] + part.text + doc[j:]
	}
	if *updateDocs {
		require.NoError(t, os.WriteFile(configurationDoc, []byte(doc), 0o644))
		return
	}
	require.Equal(t, doc, string(data),
		"docs/configuration.md is stale: run go test ./internal/config -run TestConfigurationDoc -update")
}

// renderKeys writes a key table as one Markdown table per section, then the ignored keys.
func renderKeys[C, T any](table []key[C, T]) string {
	var b strings.Builder
	var ignoredNames []string
	section := ""
	for _, k := range table {
		if k.field == nil {
			ignoredNames = append(ignoredNames, k.name)
			continue
		}
		if k.section != section {
			section = k.section
			fmt.Fprintf(&b, "\n### %s\n\n| Key | Type | Default | Meaning |\n|---|---|---|---|\n", section)
		}
		var c C
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", k.name, typeName(k.value(&c)), docDefault(k, k.value(&c)), meaning(k))
	}
	sort.Strings(ignoredNames)
	fmt.Fprintf(&b, "\n<details><summary>RocketMQ keys accepted and ignored (%d)</summary>\n\n%s\n\n</details>\n\n",
		len(ignoredNames), "`"+strings.Join(ignoredNames, "`, `")+"`")
	return b.String()
}

func typeName(v reflect.Value) string {
	if v.Type() == reflect.TypeOf(Allowlist{}) {
		return "list"
	}
	if _, ok := v.Addr().Interface().(encoding.TextUnmarshaler); ok {
		return "enum"
	}
	if v.Type() == reflect.TypeOf(Millis(0)) {
		return "ms"
	}
	switch v.Kind() {
	case reflect.Int:
		return "int"
	case reflect.Int64:
		return "long"
	}
	return v.Kind().String()
}

func docDefault[C, T any](k key[C, T], v reflect.Value) string {
	switch {
	case k.defDoc != "":
		return k.defDoc
	case k.def == "" && v.Kind() == reflect.String:
		return "(empty)"
	case k.def == "":
		return fmt.Sprint(reflect.Zero(v.Type()).Interface())
	case strings.Contains(k.def, " "):
		return "`" + k.def + "`"
	}
	return k.def
}

func meaning[C, T any](k key[C, T]) string {
	m := k.doc
	if k.old != "" {
		m += " Old spelling `" + k.old + "` accepted."
	}
	switch k.origin {
	case ours:
		m += " **Our key.**"
	case systemProperty:
		m += " (Java system property.)"
	}
	if k.to == nil {
		m += " *Accepted; no effect yet.*"
	}
	return m
}
