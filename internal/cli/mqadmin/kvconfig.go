package mqadmin

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
)

// newUpdateKvConfigCommand is `mqadmin updateKvConfig -s namespace -k key -v value`: the KV item
// is written on every name server (PUT_KV_CONFIG).
func newUpdateKvConfigCommand(env *adminEnv) *cobra.Command {
	var namespace, key, value string
	cmd := &cobra.Command{
		Use:   "updateKvConfig",
		Short: "Create or update KV config",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := env.client()
			defer c.Close()
			err := c.PutKVConfig(cmd.Context(), strings.TrimSpace(namespace), strings.TrimSpace(key), strings.TrimSpace(value))
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), "create or update kv config to namespace success.")
			return nil
		},
	}
	cmd.Flags().StringVarP(&namespace, "namespace", "s", "", "set the namespace")
	cmd.Flags().StringVarP(&key, "key", "k", "", "set the key name")
	cmd.Flags().StringVarP(&value, "value", "v", "", "set the key value")
	for _, f := range []string{"namespace", "key", "value"} {
		_ = cmd.MarkFlagRequired(f)
	}
	return cmd
}

// newDeleteKvConfigCommand is `mqadmin deleteKvConfig -s namespace -k key`: the KV item is
// removed from every name server (DELETE_KV_CONFIG).
func newDeleteKvConfigCommand(env *adminEnv) *cobra.Command {
	var namespace, key string
	cmd := &cobra.Command{
		Use:   "deleteKvConfig",
		Short: "Delete KV config",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := env.client()
			defer c.Close()
			if err := c.DeleteKVConfig(cmd.Context(), strings.TrimSpace(namespace), strings.TrimSpace(key)); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), "delete kv config from namespace success.")
			return nil
		},
	}
	cmd.Flags().StringVarP(&namespace, "namespace", "s", "", "set the namespace")
	cmd.Flags().StringVarP(&key, "key", "k", "", "set the key name")
	_ = cmd.MarkFlagRequired("namespace")
	_ = cmd.MarkFlagRequired("key")
	return cmd
}

// newUpdateOrderConfCommand is `mqadmin updateOrderConf -t topic -m put|get|delete [-v
// brokerA:4;brokerB:4]`: an order topic's queue layout in the name servers' KV store (namespace
// ORDER_TOPIC_CONFIG), which routes carry as orderTopicConf.
func newUpdateOrderConfCommand(env *adminEnv) *cobra.Command {
	var topic, conf, method string
	cmd := &cobra.Command{
		Use:   "updateOrderConf",
		Short: "Create or update or delete order conf",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := env.client()
			defer c.Close()
			return runUpdateOrderConf(cmd, c, strings.TrimSpace(topic), strings.TrimSpace(conf), strings.TrimSpace(method))
		},
	}
	cmd.Flags().StringVarP(&topic, "topic", "t", "", "topic name")
	cmd.Flags().StringVarP(&conf, "orderConf", "v", "", "set order conf [eg. brokerName1:num;brokerName2:num]")
	cmd.Flags().StringVarP(&method, "method", "m", "", "option type [eg. put|get|delete")
	_ = cmd.MarkFlagRequired("topic")
	_ = cmd.MarkFlagRequired("method")
	return cmd
}

func runUpdateOrderConf(cmd *cobra.Command, c *admin.Client, topic, conf, method string) error {
	ctx, w := cmd.Context(), cmd.OutOrStdout()
	switch method {
	case "get":
		value, ok, err := c.KVConfig(ctx, admin.NamespaceOrderTopicConfig, topic)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("no order conf for topic %s", topic)
		}
		fmt.Fprintf(w, "get orderConf success. topic=[%s], orderConf=[%s]\n", topic, value)
	case "put":
		if conf == "" {
			return errors.New("please set orderConf with option -v")
		}
		if _, err := admin.ParseOrderConf(conf); err != nil {
			return err
		}
		if err := c.PutKVConfig(ctx, admin.NamespaceOrderTopicConfig, topic, conf); err != nil {
			return err
		}
		fmt.Fprintf(w, "update orderConf success. topic=[%s], orderConf=[%s]\n", topic, conf)
	case "delete":
		if err := c.DeleteKVConfig(ctx, admin.NamespaceOrderTopicConfig, topic); err != nil {
			return err
		}
		fmt.Fprintf(w, "delete orderConf success. topic=[%s]\n", topic)
	default:
		return fmt.Errorf("-m %q: want put, get or delete", method)
	}
	return nil
}
