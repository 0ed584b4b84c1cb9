package ops

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// object is one Kubernetes object of deploy/k8s, as parsed YAML.
type object struct {
	file string
	m    map[string]any
}

func (o object) kind() string { return str(o.m, "kind") }
func (o object) name() string { return str(o.m, "metadata", "name") }
func (o object) String() string {
	return fmt.Sprintf("%s %s (%s)", o.kind(), o.name(), filepath.Base(o.file))
}

// at walks maps by key and lists by decimal index; nil when a step is missing.
func at(v any, path ...string) any {
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func str(v any, path ...string) string {
	s, _ := at(v, path...).(string)
	return s
}

func list(v any, path ...string) []any {
	l, _ := at(v, path...).([]any)
	return l
}

func intAt(v any, path ...string) int {
	i, _ := at(v, path...).(int)
	return i
}

// loadK8s parses every YAML document of deploy/k8s/*.yaml (kustomization.yaml apart).
func loadK8s(t testing.TB) (objs []object, kustomization map[string]any) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot(t), "deploy", "k8s", "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		for i := 0; ; i++ {
			var m map[string]any
			err := dec.Decode(&m)
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err, "%s: document %d", f, i)
			if filepath.Base(f) == "kustomization.yaml" {
				kustomization = m
				continue
			}
			o := object{file: f, m: m}
			require.NotEmpty(t, str(m, "apiVersion"), "%s: document %d has no apiVersion", f, i)
			require.NotEmpty(t, o.kind(), "%s: document %d has no kind", f, i)
			require.NotEmpty(t, o.name(), "%s: document %d has no metadata.name", f, i)
			objs = append(objs, o)
		}
	}
	return objs, kustomization
}

func byKind(objs []object, kind string) []object {
	var out []object
	for _, o := range objs {
		if o.kind() == kind {
			out = append(out, o)
		}
	}
	return out
}

// probe is an HTTP probe of a container: its binary, path, container port and the server's
// configuration (with the port the conf gives the metrics listener).
type probe struct {
	workload object
	binary   string
	kind     string // livenessProbe, readinessProbe, startupProbe
	path     string
	port     int
	conf     map[string]string
}

// TestKubernetesManifests: the manifests parse (strict YAML, every object with apiVersion, kind
// and name; `kubectl kustomize` renders them when kubectl is installed); kustomization.yaml lists
// every file; names are unique; the name servers are Deployments with Services, each broker group
// a StatefulSet of a master and slaves with a volume claim per pod holding the store; every conf a
// pod reads is in its ConfigMap and loads (mqbroker/mqnamesrv -p); every Service selects pods and
// their ports; liveness and readiness probes point at the metrics port of the pod's conf; and
// every probe path is one the real binaries serve (started from those confs, then GET).
func TestKubernetesManifests(t *testing.T) {
	t.Parallel()
	objs, kust := loadK8s(t)
	requireKustomization(t, objs, kust)
	seen := map[string]bool{}
	for _, o := range objs {
		key := o.kind() + "/" + o.name()
		require.False(t, seen[key], "%s twice", key)
		seen[key] = true
	}
	require.GreaterOrEqual(t, len(byKind(objs, "Deployment")), 1, "the name servers' Deployments")
	require.GreaterOrEqual(t, len(byKind(objs, "StatefulSet")), 1, "the brokers' StatefulSets")

	var probes []probe
	for _, w := range append(byKind(objs, "Deployment"), byKind(objs, "StatefulSet")...) {
		probes = append(probes, checkWorkload(t, objs, w)...)
	}
	for _, s := range byKind(objs, "Service") {
		checkService(t, objs, s)
	}
	checkNamesrvAddrs(t, objs)
	requireProbesServed(t, probes)

	if _, err := exec.LookPath("kubectl"); err == nil {
		out, err := exec.Command("kubectl", "kustomize", filepath.Join(repoRoot(t), "deploy", "k8s")).CombinedOutput()
		require.NoError(t, err, "kubectl kustomize deploy/k8s: %s", out)
		require.Equal(t, len(objs), strings.Count("\n"+string(out), "\nkind: "), "kustomize rendered every object")
	} else {
		t.Log("kubectl not installed: kustomize rendering not tried")
	}
}

func requireKustomization(t testing.TB, objs []object, kust map[string]any) {
	t.Helper()
	require.NotNil(t, kust, "deploy/k8s/kustomization.yaml")
	var listed []string
	for _, r := range list(kust, "resources") {
		listed = append(listed, r.(string))
	}
	files := map[string]bool{}
	for _, o := range objs {
		files[filepath.Base(o.file)] = true
	}
	var want []string
	for f := range files {
		want = append(want, f)
	}
	sort.Strings(want)
	sort.Strings(listed)
	require.Equal(t, want, listed, "kustomization.yaml lists every manifest")
}

// podSpec is a workload's pod template spec.
func podSpec(w object) map[string]any {
	m, _ := at(w.m, "spec", "template", "spec").(map[string]any)
	return m
}

// checkWorkload checks a Deployment or StatefulSet and returns its probes.
func checkWorkload(t testing.TB, objs []object, w object) []probe {
	t.Helper()
	sel, _ := at(w.m, "spec", "selector", "matchLabels").(map[string]any)
	labels, _ := at(w.m, "spec", "template", "metadata", "labels").(map[string]any)
	require.NotEmpty(t, sel, "%s: spec.selector.matchLabels", w)
	for k, v := range sel {
		require.Equal(t, v, labels[k], "%s: the pod template carries selector label %s", w, k)
	}
	spec := podSpec(w)
	require.Equal(t, true, at(spec, "securityContext", "runAsNonRoot"), "%s: runAsNonRoot", w)
	containers := list(spec, "containers")
	require.Len(t, containers, 1, "%s: one container", w)
	c := containers[0]
	binary := filepath.Base(str(c, "command", "0"))
	require.Contains(t, []string{"mqnamesrv", "mqbroker"}, binary, "%s: command", w)
	require.Equal(t, "/usr/local/bin/"+binary, str(c, "command", "0"), "%s: where deploy/Dockerfile installs it", w)
	require.Equal(t, false, at(c, "securityContext", "allowPrivilegeEscalation"), "%s", w)
	require.Equal(t, true, at(c, "securityContext", "readOnlyRootFilesystem"), "%s", w)

	confs := podConfs(t, objs, w, c)
	if w.kind() == "StatefulSet" {
		checkBrokerGroup(t, objs, w, c, confs)
	}
	var out []probe
	for _, kind := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
		pr := at(c, kind)
		if pr == nil {
			require.NotEqual(t, "livenessProbe", kind, "%s: a liveness probe", w)
			require.NotEqual(t, "readinessProbe", kind, "%s: a readiness probe", w)
			continue
		}
		path := str(pr, "httpGet", "path")
		require.NotEmpty(t, path, "%s: %s is an httpGet probe", w, kind)
		port := containerPort(t, w, c, at(pr, "httpGet", "port"))
		for _, conf := range confs {
			require.Equal(t, "PROM", conf["metricsExporterType"], "%s: the conf turns the metrics and probe listener on", w)
			require.Equal(t, strconv.Itoa(port), conf["metricsPromExporterPort"], "%s: %s port is the conf's metrics port", w, kind)
			out = append(out, probe{workload: w, binary: binary, kind: kind, path: path, port: port, conf: conf})
		}
	}
	return out
}

// containerPort resolves a probe's or Service's port (a number or a port name) in container c.
func containerPort(t testing.TB, w object, c any, port any) int {
	t.Helper()
	if n, ok := port.(int); ok {
		return n
	}
	for _, p := range list(c, "ports") {
		if str(p, "name") == port {
			return intAt(p, "containerPort")
		}
	}
	t.Fatalf("%s: no container port named %v", w, port)
	return 0
}

// podConfs returns the confs the pods of w read (-c), one per StatefulSet ordinal, parsed.
func podConfs(t testing.TB, objs []object, w object, c any) []map[string]string {
	t.Helper()
	args := list(c, "args")
	i := slices.IndexFunc(args, func(a any) bool { return a == "-c" })
	require.True(t, i >= 0 && i+1 < len(args), "%s: -c <conf> in args", w)
	confPath := args[i+1].(string)
	dir, file := filepath.Dir(confPath), filepath.Base(confPath)
	cm := configMapAt(t, objs, w, c, dir)
	var names []string
	if strings.Contains(file, "$(POD_NAME)") {
		require.Equal(t, "metadata.name", str(findEnv(c, "POD_NAME"), "valueFrom", "fieldRef", "fieldPath"), "%s", w)
		for ord := range intAt(w.m, "spec", "replicas") {
			names = append(names, strings.ReplaceAll(file, "$(POD_NAME)", fmt.Sprintf("%s-%d", w.name(), ord)))
		}
	} else {
		names = []string{file}
	}
	var out []map[string]string
	for _, n := range names {
		text := str(cm.m, "data", n)
		require.NotEmpty(t, text, "%s: ConfigMap %s has no %s", w, cm.name(), n)
		out = append(out, loadConf(t, binaryOf(c), n, text))
	}
	return out
}

func binaryOf(c any) string { return filepath.Base(str(c, "command", "0")) }

func findEnv(c any, name string) any {
	for _, e := range list(c, "env") {
		if str(e, "name") == name {
			return e
		}
	}
	return nil
}

// configMapAt is the ConfigMap mounted at dir in container c of w.
func configMapAt(t testing.TB, objs []object, w object, c any, dir string) object {
	t.Helper()
	vol := volumeAt(c, dir)
	require.NotEmpty(t, vol, "%s: nothing mounted at %s", w, dir)
	for _, v := range list(podSpec(w), "volumes") {
		if str(v, "name") == vol {
			name := str(v, "configMap", "name")
			for _, cm := range byKind(objs, "ConfigMap") {
				if cm.name() == name {
					return cm
				}
			}
			t.Fatalf("%s: volume %s is ConfigMap %q, which is not in deploy/k8s", w, vol, name)
		}
	}
	t.Fatalf("%s: volume %s is not a ConfigMap volume", w, vol)
	return object{}
}

// volumeAt is the name of the volume mounted at dir, or "".
func volumeAt(c any, dir string) string {
	for _, m := range list(c, "volumeMounts") {
		if str(m, "mountPath") == dir {
			return str(m, "name")
		}
	}
	return ""
}

// loadConf checks that the real binary loads the conf text (-p) and returns its keys as given.
func loadConf(t testing.TB, binary, name, text string) map[string]string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	out, err := exec.Command(bin(t, binary), "-c", path, "-p").CombinedOutput()
	require.NoError(t, err, "%s -c %s -p:\n%s", binary, name, out)
	props := map[string]string{}
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		require.True(t, ok, "%s: %q", name, l)
		props[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return props
}

// checkBrokerGroup: a StatefulSet is one broker group: a master (brokerId 0) and slaves of the
// same brokerName, each pod with its volume claim mounted at its storePathRootDir, served by a
// headless Service.
func checkBrokerGroup(t testing.TB, objs []object, w object, c any, confs []map[string]string) {
	t.Helper()
	require.GreaterOrEqual(t, len(confs), 2, "%s: a master and at least one slave", w)
	for ord, conf := range confs {
		require.Equal(t, confs[0]["brokerName"], conf["brokerName"], "%s: one brokerName per group", w)
		require.Equal(t, strconv.Itoa(ord), conf["brokerId"], "%s: pod %d's brokerId", w, ord)
		if ord == 0 {
			require.Contains(t, []string{"ASYNC_MASTER", "SYNC_MASTER"}, conf["brokerRole"], "%s: pod 0 is the master", w)
		} else {
			require.Equal(t, "SLAVE", conf["brokerRole"], "%s: pod %d is a slave", w, ord)
		}
		claim := volumeAt(c, conf["storePathRootDir"])
		require.NotEmpty(t, claim, "%s: nothing mounted at storePathRootDir %s", w, conf["storePathRootDir"])
		var claims []string
		for _, vc := range list(w.m, "spec", "volumeClaimTemplates") {
			claims = append(claims, str(vc, "metadata", "name"))
		}
		require.Contains(t, claims, claim, "%s: the store is a volume claim of each pod", w)
	}
	svc := str(w.m, "spec", "serviceName")
	for _, s := range byKind(objs, "Service") {
		if s.name() == svc {
			require.Equal(t, "None", str(s.m, "spec", "clusterIP"), "%s: serviceName %s is headless", w, svc)
			return
		}
	}
	t.Fatalf("%s: serviceName %s is not a Service of deploy/k8s", w, svc)
}

// checkService: a Service selects the pods of a workload, and its named target ports exist there.
func checkService(t testing.TB, objs []object, s object) {
	t.Helper()
	sel, _ := at(s.m, "spec", "selector").(map[string]any)
	require.NotEmpty(t, sel, "%s: a selector", s)
	matched := 0
	for _, w := range append(byKind(objs, "Deployment"), byKind(objs, "StatefulSet")...) {
		labels, _ := at(w.m, "spec", "template", "metadata", "labels").(map[string]any)
		if !selects(sel, labels) {
			continue
		}
		matched++
		c := list(podSpec(w), "containers")[0]
		for _, p := range list(s.m, "spec", "ports") {
			containerPort(t, w, c, at(p, "targetPort"))
		}
	}
	require.Positive(t, matched, "%s selects no pods", s)
}

func selects(sel, labels map[string]any) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// checkNamesrvAddrs: every name server a broker conf lists is a Service of a name server's pods,
// on their remoting port.
func checkNamesrvAddrs(t testing.TB, objs []object) {
	t.Helper()
	for _, cm := range byKind(objs, "ConfigMap") {
		data, _ := at(cm.m, "data").(map[string]any)
		for name, text := range data {
			for _, l := range strings.Split(text.(string), "\n") {
				k, v, ok := strings.Cut(l, "=")
				if !ok || strings.TrimSpace(k) != "namesrvAddr" {
					continue
				}
				for _, addr := range strings.Split(strings.TrimSpace(v), ";") {
					host, port, _ := strings.Cut(addr, ":")
					requireNamesrvService(t, objs, cm.name()+"/"+name, host, port)
				}
			}
		}
	}
}

func requireNamesrvService(t testing.TB, objs []object, where, host, port string) {
	t.Helper()
	for _, s := range byKind(objs, "Service") {
		if s.name() != host {
			continue
		}
		for _, p := range list(s.m, "spec", "ports") {
			if strconv.Itoa(intAt(p, "port")) == port {
				return
			}
		}
		t.Fatalf("%s: Service %s has no port %s", where, host, port)
	}
	t.Fatalf("%s: namesrvAddr names %s, which is not a Service of deploy/k8s", where, host)
}

// requireProbesServed starts each kind of server from a conf of the manifests (ports, paths and
// name servers moved to this test's) and GETs every probe path: each must answer 200 once the
// server is ready.
func requireProbesServed(t testing.TB, probes []probe) {
	t.Helper()
	dir := t.TempDir()
	byBinary := map[string][]probe{}
	for _, p := range probes {
		byBinary[p.binary] = append(byBinary[p.binary], p)
	}
	require.NotEmpty(t, byBinary["mqnamesrv"], "name server probes")
	require.NotEmpty(t, byBinary["mqbroker"], "broker probes")

	nsProps := byBinary["mqnamesrv"][0].conf
	ns := namesrvNode(t, filepath.Join(dir, "namesrv"), map[string]string{"kvConfigPath": filepath.Join(dir, "namesrv", "kv.json")})
	for k, v := range nsProps {
		if _, ours := ns.props[k]; !ours {
			ns.props[k] = v
		}
	}
	writeConf(t, ns.conf, ns.props)
	nsProc := startNamesrv(t, ns)
	requirePaths(t, nsProc, ns, byBinary["mqnamesrv"])

	var master map[string]string
	for _, p := range byBinary["mqbroker"] {
		if p.conf["brokerId"] == "0" {
			master = p.conf
			break
		}
	}
	require.NotNil(t, master, "a master's conf")
	props := map[string]string{}
	for k, v := range master {
		props[k] = v
	}
	br := brokerNode(t, filepath.Join(dir, "broker"), master["brokerName"], ns.addr(), nil)
	for k, v := range props {
		if _, ours := br.props[k]; !ours {
			br.props[k] = v
		}
	}
	writeConf(t, br.conf, br.props)
	brProc := startBroker(t, br)
	requirePaths(t, brProc, br, byBinary["mqbroker"])
}

// requirePaths GETs the path of every probe from the server p of n: each must answer 200.
func requirePaths(t testing.TB, p *proc, n *node, probes []probe) {
	t.Helper()
	done := map[string]bool{}
	for _, pr := range probes {
		key := pr.workload.String() + " " + pr.kind + " " + pr.path
		if done[key] {
			continue
		}
		done[key] = true
		body := waitHTTP(t, p, n.url(pr.path), http.StatusOK)
		t.Logf("%s: 200 %q", key, strings.TrimSpace(body))
	}
}
