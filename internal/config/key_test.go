package config

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// leafFields lists the addresses of every field of the struct v points to, descending into
// embedded structs, by Go field path.
func leafFields(v reflect.Value, path string, out map[uintptr]string) {
	for i := 0; i < v.NumField(); i++ {
		f, sf := v.Field(i), v.Type().Field(i)
		if sf.Anonymous {
			leafFields(f, path+sf.Name+".", out)
			continue
		}
		out[f.Addr().Pointer()] = path + sf.Name
	}
}

// requireOneKeyPerField: every field of the config struct is the slot of exactly one key, and
// every key's slot is a field of it; so a field cannot be added without its key.
func requireOneKeyPerField[C, T any](t *testing.T, table []key[C, T]) {
	var c C
	fields := map[uintptr]string{}
	leafFields(reflect.ValueOf(&c).Elem(), "", fields)
	owner := map[string]string{}
	for _, k := range table {
		if k.field == nil {
			continue
		}
		name, ok := fields[reflect.ValueOf(k.field(&c)).Pointer()]
		require.True(t, ok, "key %s: its field is not a field of %T", k.name, c)
		require.Empty(t, owner[name], "field %s belongs to both %s and %s", name, owner[name], k.name)
		owner[name] = k.name
	}
	for _, name := range fields {
		require.NotEmpty(t, owner[name], "field %s of %T has no key", name, c)
	}
}

func TestOneKeyPerField(t *testing.T) {
	requireOneKeyPerField(t, brokerKeys())
	requireOneKeyPerField(t, namesrvKeys())
}

// requireWellFormed: names (with old spellings and the ignored keys) are unique in any letter
// case, so a key that starts being read cannot stay in the ignored list; every key read has a
// documentation line, a section and a default that parses.
func requireWellFormed[C, T any](t *testing.T, table []key[C, T]) {
	seen := map[string]bool{}
	for _, k := range table {
		for _, n := range []string{k.name, k.old} {
			if n == "" {
				continue
			}
			require.False(t, seen[strings.ToLower(n)], "key %s is declared twice (read and ignored?)", n)
			seen[strings.ToLower(n)] = true
		}
		if k.field == nil {
			require.Nil(t, k.to, k.name)
			continue
		}
		require.NotEmpty(t, k.doc, "key %s has no documentation line", k.name)
		require.NotEmpty(t, k.section, k.name)
		var c C
		if k.def != "" {
			require.NoError(t, setField(k.value(&c), k.def), "default of %s", k.name)
		}
		require.False(t, k.def != "" && k.defFunc != nil, "key %s has two defaults", k.name)
	}
}

func TestIgnoredKeysAreNotRead(t *testing.T) {
	requireWellFormed(t, brokerKeys())
	requireWellFormed(t, namesrvKeys())
	require.True(t, brokerSchema().ignored["sendmessagethreadpoolnums"])
	require.False(t, brokerSchema().ignored["brokername"])
	require.True(t, namesrvSchema().ignored["clientrequestthreadpoolnums"])
}
