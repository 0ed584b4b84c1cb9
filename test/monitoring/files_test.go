package monitoring

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// A query is one PromQL expression of a monitoring file, and where it is.
type query struct {
	where string // file and panel, variable or alert
	expr  string
}

// A selector is one metric a query reads, with the labels its matchers name.
type selector struct {
	where, metric string
	labels        []string
}

// deployFile is the path of a file under deploy/.
func deployFile(t *testing.T, rel string) string {
	t.Helper()
	root, err := cluster.RepoRoot()
	require.NoError(t, err)
	return filepath.Join(root, "deploy", rel)
}

// dashboard is the part of a Grafana dashboard the queries live in.
type dashboard struct {
	Title      string  `json:"title"`
	UID        string  `json:"uid"`
	Panels     []panel `json:"panels"`
	Templating struct {
		List []struct {
			Name  string          `json:"name"`
			Type  string          `json:"type"`
			Query json.RawMessage `json:"query"`
		} `json:"list"`
	} `json:"templating"`
}

type panel struct {
	Title   string  `json:"title"`
	Type    string  `json:"type"`
	Panels  []panel `json:"panels"` // a collapsed row's
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
}

// dashboardQueries reads the dashboard and returns its panels' and variables' queries.
func dashboardQueries(t *testing.T, path string) []query {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var d dashboard
	require.NoError(t, json.Unmarshal(raw, &d), "%s is not JSON", path)
	require.NotEmpty(t, d.Title, "dashboard title")
	require.NotEmpty(t, d.UID, "dashboard uid")
	var out []query
	var walk func(ps []panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			walk(p.Panels)
			if p.Type != "row" {
				require.NotEmpty(t, p.Targets, "panel %q has no query", p.Title)
			}
			for _, tg := range p.Targets {
				out = append(out, query{where: "panel " + p.Title, expr: tg.Expr})
			}
		}
	}
	walk(d.Panels)
	for _, v := range d.Templating.List {
		if v.Type == "query" {
			out = append(out, query{where: "variable " + v.Name, expr: labelValuesExpr(t, v.Name, v.Query)})
		}
	}
	return out
}

var labelValues = regexp.MustCompile(`^label_values\((.+),\s*[A-Za-z_][A-Za-z0-9_]*\)$`)

// labelValuesExpr is the selector of a variable's label_values(selector, label) query.
func labelValuesExpr(t *testing.T, name string, raw json.RawMessage) string {
	t.Helper()
	var q struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(raw, &q); err != nil {
		require.NoError(t, json.Unmarshal(raw, &q.Query), "variable %s: query", name)
	}
	m := labelValues.FindStringSubmatch(q.Query)
	require.NotNil(t, m, "variable %s: want label_values(selector, label), got %q", name, q.Query)
	return m[1]
}

// ruleQueries reads the alert rules as Prometheus loads them (promtool's checks: groups, names,
// durations, templates and expressions) and returns their expressions.
func ruleQueries(t *testing.T, path string) []query {
	t.Helper()
	groups, errs := rulefmt.ParseFile(path, false, model.UTF8Validation)
	require.Empty(t, errs, "%s", path)
	var out []query
	for _, g := range groups.Groups {
		require.NotEmpty(t, g.Rules, "group %s", g.Name)
		for _, r := range g.Rules {
			require.NotEmpty(t, r.Alert, "group %s: only alerting rules here", g.Name)
			require.NotEmpty(t, r.Annotations["summary"], "alert %s has no summary", r.Alert)
			require.NotEmpty(t, r.Labels["severity"], "alert %s has no severity", r.Alert)
			out = append(out, query{where: "alert " + r.Alert, expr: r.Expr})
		}
	}
	return out
}

// grafanaVars are Grafana's interval variables, which are not PromQL until Grafana fills them in.
var grafanaVars = strings.NewReplacer("$__rate_interval", "5m", "$__interval", "1m", "$__range", "1h")

// selectors parses each query and returns every metric selector in it.
func selectors(t *testing.T, qs []query) []selector {
	t.Helper()
	var out []selector
	for _, q := range qs {
		expr, err := parser.ParseExpr(grafanaVars.Replace(q.expr))
		require.NoError(t, err, "%s: %s", q.where, q.expr)
		parser.Inspect(expr, func(n parser.Node, _ []parser.Node) error {
			if vs, ok := n.(*parser.VectorSelector); ok {
				out = append(out, selectorOf(q.where, vs))
			}
			return nil
		})
	}
	return out
}

func selectorOf(where string, vs *parser.VectorSelector) selector {
	s := selector{where: where, metric: vs.Name}
	for _, m := range vs.LabelMatchers {
		if m.Name == labels.MetricName {
			s.metric = m.Value
			continue
		}
		s.labels = append(s.labels, m.Name)
	}
	return s
}

// TestMonitoringFilesParse: the dashboard is JSON with a query in every panel, the rules load as
// Prometheus loads them, and every expression of both parses as PromQL.
func TestMonitoringFilesParse(t *testing.T) {
	qs := append(dashboardQueries(t, deployFile(t, "grafana/rocketgo-dashboard.json")),
		ruleQueries(t, deployFile(t, "prometheus/rocketgo-alerts.yml"))...)
	sels := selectors(t, qs)
	require.Greater(t, len(sels), 50, "the dashboard and the rules read the metrics")
	for _, s := range sels {
		require.NotEmpty(t, s.metric, "%s: a selector without a metric name", s.where)
	}
}

func (s selector) String() string {
	return fmt.Sprintf("%s{%s} (%s)", s.metric, strings.Join(s.labels, ","), s.where)
}
