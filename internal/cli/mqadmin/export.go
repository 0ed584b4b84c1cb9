package mqadmin

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/internal/config"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// exportFlags are exportMetadata's options.
type exportFlags struct {
	cluster, addr, path                  string
	topicsOnly, groupsOnly, specialTopic bool
}

// newExportMetadataCommand is `mqadmin exportMetadata (-c cluster | -b addr) [-f dir] [-t | -g]
// [-s]`: the user topics and consumer groups of a cluster's masters (queue counts summed over
// them) or of one broker, as JSON in dir/metadata.json (topic.json with -t, subscriptionGroup.json
// with -g). System topics and groups are left out; retry and dead-letter topics too unless -s.
func newExportMetadataCommand(env *adminEnv) *cobra.Command {
	var f exportFlags
	cmd := &cobra.Command{
		Use:   "exportMetadata",
		Short: "Export metadata",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (f.addr == "") == (f.cluster == "") {
				return errors.New("exportMetadata needs either -b brokerAddr or -c clusterName")
			}
			if f.path == "" {
				f.path = filepath.Join(env.tmpDir, "export")
			}
			c := env.client()
			defer c.Close()
			return runExportMetadata(cmd, c, f, env.now().UnixMilli())
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.cluster, "clusterName", "c", "", "choose a cluster to export")
	fl.StringVarP(&f.addr, "brokerAddr", "b", "", "choose a broker to export")
	fl.StringVarP(&f.path, "filePath", "f", "", "export metadata.json path | default /tmp/rocketmq/export")
	fl.BoolVarP(&f.topicsOnly, "topic", "t", false, "only export topic metadata")
	fl.BoolVarP(&f.groupsOnly, "subscriptionGroup", "g", false, "only export subscriptionGroup metadata")
	fl.BoolVarP(&f.specialTopic, "specialTopic", "s", false, "need retryTopic and dlqTopic")
	return cmd
}

func runExportMetadata(cmd *cobra.Command, c *admin.Client, f exportFlags, now int64) error {
	ctx := cmd.Context()
	addrs := []string{strings.TrimSpace(f.addr)}
	if f.cluster != "" {
		var err error
		if addrs, err = clusterAddrs(cmd, c, strings.TrimSpace(f.cluster), false); err != nil {
			return err
		}
	}
	topics := map[string]body.TopicConfig{}
	groups := map[string]body.SubscriptionGroupConfig{}
	for _, addr := range addrs {
		tw, err := c.UserTopicConfig(ctx, addr, f.specialTopic)
		if err != nil {
			return err
		}
		gw, err := c.UserSubscriptionGroup(ctx, addr)
		if err != nil {
			return err
		}
		mergeTopics(topics, tw.TopicConfigTable)
		for name, g := range gw.SubscriptionGroupTable {
			if old, ok := groups[name]; ok {
				g.RetryQueueNums += old.RetryQueueNums
			}
			groups[name] = g
		}
	}
	doc := map[string]any{"exportTime": now}
	file := "metadata.json"
	switch {
	case f.topicsOnly:
		doc["topicConfigTable"], file = topics, "topic.json"
	case f.groupsOnly:
		doc["subscriptionGroupTable"], file = groups, "subscriptionGroup.json"
	default:
		doc["topicConfigTable"], doc["subscriptionGroupTable"] = topics, groups
	}
	return writeExport(cmd, filepath.Join(f.path, file), doc)
}

// mergeTopics adds a broker's topics to the merged table, summing queue counts as Java does.
func mergeTopics(merged, table map[string]body.TopicConfig) {
	for name, tc := range table {
		if old, ok := merged[name]; ok {
			tc.ReadQueueNums += old.ReadQueueNums
			tc.WriteQueueNums += old.WriteQueueNums
		}
		merged[name] = tc
	}
}

// writeExport writes doc as indented JSON to path, creating its directory, and says so.
func writeExport(cmd *cobra.Command, path string, doc any) error {
	data, err := body.MarshalIndent(doc)
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "export %s success\n", path)
	return nil
}

// exportedBrokerKeys are the broker keys exportConfigs keeps (Java ExportConfigsCommand).
var exportedBrokerKeys = []string{"brokerClusterName", "brokerId", "brokerName", "brokerRole", "fileReservedTime",
	"filterServerNums", "flushDiskType", "maxMessageSize", "messageDelayLevel", "msgTraceTopicName", "slaveReadEnable",
	"traceOn", "traceTopicEnable", "useTLS", "autoCreateTopicEnable", "autoCreateSubscriptionGroup"}

// newExportConfigsCommand is `mqadmin exportConfigs -c cluster [-f dir]`: the main keys of each
// master's configuration by broker name, and the cluster's size, as JSON in dir/configs.json.
func newExportConfigsCommand(env *adminEnv) *cobra.Command {
	var cluster, path string
	cmd := &cobra.Command{
		Use:   "exportConfigs",
		Short: "Export configs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if path == "" {
				path = filepath.Join(env.tmpDir, "export")
			}
			c := env.client()
			defer c.Close()
			doc, err := clusterConfigs(cmd, c, strings.TrimSpace(cluster))
			if err != nil {
				return err
			}
			return writeExport(cmd, filepath.Join(path, "configs.json"), doc)
		},
	}
	cmd.Flags().StringVarP(&cluster, "clusterName", "c", "", "choose a cluster to export")
	cmd.Flags().StringVarP(&path, "filePath", "f", "", "export configs.json path | default /tmp/rocketmq/export")
	_ = cmd.MarkFlagRequired("clusterName")
	return cmd
}

// clusterConfigs is exportConfigs' document.
func clusterConfigs(cmd *cobra.Command, c *admin.Client, cluster string) (map[string]any, error) {
	info, err := c.ClusterInfo(cmd.Context())
	if err != nil {
		return nil, err
	}
	groups, err := admin.ClusterMasterAndSlaves(info, cluster)
	if err != nil {
		return nil, err
	}
	configs := map[string]map[string]string{}
	slaves := 0
	for _, g := range groups {
		text, _, err := c.BrokerConfig(cmd.Context(), g.Master)
		if err != nil {
			return nil, err
		}
		props, err := config.ParseProperties([]byte(text))
		if err != nil {
			return nil, fmt.Errorf("%s: the broker's configuration is not Java-properties text: %w", g.Master, err)
		}
		all := map[string]string{}
		for _, p := range props {
			all[p.Key] = p.Value
		}
		kept := map[string]string{}
		for _, k := range exportedBrokerKeys {
			if v, ok := all[k]; ok {
				kept[k] = v
			}
		}
		configs[all["brokerName"]] = kept
		slaves += len(g.Slaves)
	}
	scale := map[string]int{"namesrvSize": len(c.NamesrvAddrs()), "masterBrokerSize": len(groups), "slaveBrokerSize": slaves}
	return map[string]any{"brokerConfigs": configs, "clusterScale": scale}, nil
}
