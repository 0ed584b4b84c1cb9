package logging

import (
	"fmt"
	"sort"
	"strings"

	"go.uber.org/zap/zapcore"
)

// ComponentLevel is the level of one component: the loggers whose dot-separated name contains
// Name as a run of whole elements ("store" is "broker.store" and "broker.store.index", not
// "broker.storex"), the longest matching Name winning.
type ComponentLevel struct {
	Name  string
	Level zapcore.Level
}

// ParseLevels parses "store=debug,remoting=warn" (commas or semicolons, blanks ignored). A name
// is a logger name or the end of one (see ComponentLevel).
func ParseLevels(text string) ([]ComponentLevel, error) {
	var out []ComponentLevel
	for _, part := range strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ';' }) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, lvl, ok := strings.Cut(part, "=")
		name = strings.Trim(strings.TrimSpace(name), ".")
		if !ok || name == "" {
			return nil, fmt.Errorf("logging: component level %q: want name=level, e.g. store=debug", part)
		}
		l, err := parseLevel(lvl)
		if err != nil || strings.TrimSpace(lvl) == "" {
			return nil, fmt.Errorf("logging: component level %q: want debug, info, warn or error after '='", part)
		}
		out = append(out, ComponentLevel{Name: name, Level: l})
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].Name) > len(out[j].Name) })
	return out, nil
}

// componentCore is a core whose level depends on the logger's name: the first (longest)
// matching component level, else the default.
type componentCore struct {
	zapcore.Core // enabled at the lowest level any component uses
	def          zapcore.Level
	levels       []ComponentLevel // longest name first
}

func newComponentCore(enc zapcore.Encoder, out zapcore.WriteSyncer, def zapcore.Level, levels []ComponentLevel) zapcore.Core {
	lowest := def
	for _, cl := range levels {
		lowest = min(lowest, cl.Level)
	}
	core := zapcore.NewCore(enc, out, lowest)
	if len(levels) == 0 {
		return core
	}
	return &componentCore{Core: core, def: def, levels: levels}
}

// levelFor is the level of the logger called name.
func (c *componentCore) levelFor(name string) zapcore.Level {
	dotted := "." + name + "."
	for _, cl := range c.levels {
		if strings.Contains(dotted, "."+cl.Name+".") {
			return cl.Level
		}
	}
	return c.def
}

// Check adds the core to ce when ent's logger is enabled at ent's level.
func (c *componentCore) Check(ent zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if ent.Level < c.levelFor(ent.LoggerName) {
		return ce
	}
	return c.Core.Check(ent, ce)
}

// With keeps the component levels on the child core.
func (c *componentCore) With(fields []zapcore.Field) zapcore.Core {
	return &componentCore{Core: c.Core.With(fields), def: c.def, levels: c.levels}
}
