package admin

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// BrokerAddr is one broker address of a cluster.
type BrokerAddr struct {
	Cluster    string
	BrokerName string
	BrokerID   int64
	Addr       string
}

// Brokers lists every broker address of info: clusters, broker names and ids in ascending order.
// Broker groups no cluster names are left out, as Java's clusterList does.
func Brokers(info *body.ClusterInfo) []BrokerAddr {
	var out []BrokerAddr
	for _, cluster := range sortedKeys(info.ClusterAddrTable) {
		names := slices.Clone(info.ClusterAddrTable[cluster])
		sort.Strings(names)
		for _, name := range slices.Compact(names) {
			bd, ok := info.BrokerAddrTable[name]
			if !ok {
				continue
			}
			for _, id := range sortedIDs(bd.BrokerAddrs) {
				out = append(out, BrokerAddr{Cluster: cluster, BrokerName: name, BrokerID: id, Addr: bd.BrokerAddrs[id]})
			}
		}
	}
	return out
}

// ClusterBrokers lists the broker addresses of one cluster; with mastersOnly only ids 0. An
// unknown cluster is an error, as in Java's CommandUtil.
func ClusterBrokers(info *body.ClusterInfo, cluster string, mastersOnly bool) ([]BrokerAddr, error) {
	if _, ok := info.ClusterAddrTable[cluster]; !ok {
		return nil, fmt.Errorf("admin: cluster %q not found: make sure the cluster name exists and the name server is the right one", cluster)
	}
	var out []BrokerAddr
	for _, b := range Brokers(info) {
		if b.Cluster == cluster && (!mastersOnly || b.BrokerID == body.MasterID) {
			out = append(out, b)
		}
	}
	return out, nil
}

// Masters lists the masters (id 0) of one cluster, or of every cluster when cluster is "", in the
// order of Brokers; a broker group named by two clusters is listed once. An unknown cluster is an
// error, as in ClusterBrokers.
func Masters(info *body.ClusterInfo, cluster string) ([]BrokerAddr, error) {
	if cluster != "" {
		return ClusterBrokers(info, cluster, true)
	}
	var out []BrokerAddr
	for _, b := range Brokers(info) {
		listed := slices.ContainsFunc(out, func(o BrokerAddr) bool { return o.BrokerName == b.BrokerName })
		if b.BrokerID == body.MasterID && !listed {
			out = append(out, b)
		}
	}
	return out, nil
}

// BrokerNameOf returns the broker name of an address, or "" if info does not list it.
func BrokerNameOf(info *body.ClusterInfo, addr string) string {
	for name, bd := range info.BrokerAddrTable {
		for _, a := range bd.BrokerAddrs {
			if a == addr {
				return name
			}
		}
	}
	return ""
}

// ClusterOf returns the cluster a broker name belongs to, or "".
func ClusterOf(info *body.ClusterInfo, brokerName string) string {
	if bd, ok := info.BrokerAddrTable[brokerName]; ok && bd.Cluster != "" {
		return bd.Cluster
	}
	for _, cluster := range sortedKeys(info.ClusterAddrTable) {
		if slices.Contains(info.ClusterAddrTable[cluster], brokerName) {
			return cluster
		}
	}
	return ""
}

// SelectAddr returns the address to ask about a broker group: the master's, else the slave with
// the lowest id (Java BrokerData.selectBrokerAddr prefers the master too). "" if there is none.
func SelectAddr(bd body.BrokerData) string {
	ids := sortedIDs(bd.BrokerAddrs)
	if len(ids) == 0 {
		return ""
	}
	if a, ok := bd.BrokerAddrs[body.MasterID]; ok {
		return a
	}
	return bd.BrokerAddrs[ids[0]]
}

// routeAddrs returns one address per broker group of a route, in broker-name order.
func routeAddrs(route *body.TopicRouteData) []string {
	bds := slices.Clone(route.BrokerDatas)
	slices.SortFunc(bds, func(a, b body.BrokerData) int { return cmp.Compare(a.BrokerName, b.BrokerName) })
	var out []string
	for _, bd := range bds {
		if a := SelectAddr(bd); a != "" && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortedIDs(addrs body.BrokerAddrs) []int64 {
	ids := make([]int64, 0, len(addrs))
	for id := range addrs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
