package mqadmin

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// namesrvAddrs is the name server list of the run (-n, else NAMESRV_ADDR).
func (e *adminEnv) namesrvAddrs() []string {
	addrs := e.namesrv
	if addrs == "" {
		addrs = e.getenv("NAMESRV_ADDR")
	}
	return admin.ParseNamesrvAddrs(addrs)
}

// writePermCommand is wipeWritePerm or addWritePerm: one request per name server, each reported
// on a line of its own as Java does; a failed one makes the command fail after the others ran.
func writePermCommand(env *adminEnv, name, short, verb string,
	call func(c *admin.Client, cmd *cobra.Command, addr, brokerName string) (int, error)) *cobra.Command {
	var brokerName string
	cmd := &cobra.Command{
		Use:   name,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			addrs := env.namesrvAddrs()
			if len(addrs) == 0 {
				return admin.ErrNoNamesrv
			}
			c := env.client()
			defer c.Close()
			brokerName = strings.TrimSpace(brokerName)
			w := cmd.OutOrStdout()
			var errs []error
			for _, addr := range addrs {
				n, err := call(c, cmd, addr, brokerName)
				if err != nil {
					fmt.Fprintf(w, "%s write perm of broker[%s] in name server[%s] Failed\n", verb, brokerName, addr)
					errs = append(errs, err)
					continue
				}
				fmt.Fprintf(w, "%s write perm of broker[%s] in name server[%s] OK, %d\n", verb, brokerName, addr, n)
			}
			return errors.Join(errs...)
		},
	}
	cmd.Flags().StringVarP(&brokerName, "brokerName", "b", "", "broker name")
	_ = cmd.MarkFlagRequired("brokerName")
	return cmd
}

// newWipeWritePermCommand is `mqadmin wipeWritePerm -b brokerName`: every name server of -n
// takes the write permission off the broker group's queues (WIPE_WRITE_PERM_OF_BROKER), the
// usual first step of draining a broker: producers stop choosing it, consumers go on reading.
func newWipeWritePermCommand(env *adminEnv) *cobra.Command {
	return writePermCommand(env, "wipeWritePerm", "Wipe write perm of broker in all name server you defined in the -n param", "wipe",
		func(c *admin.Client, cmd *cobra.Command, addr, brokerName string) (int, error) {
			return c.WipeWritePerm(cmd.Context(), addr, brokerName)
		})
}

// newAddWritePermCommand is `mqadmin addWritePerm -b brokerName`: the undo of wipeWritePerm
// (ADD_WRITE_PERM_OF_BROKER; the queues become readable and writable).
func newAddWritePermCommand(env *adminEnv) *cobra.Command {
	return writePermCommand(env, "addWritePerm", "Add write perm of broker in all name server you defined in the -n param", "add",
		func(c *admin.Client, cmd *cobra.Command, addr, brokerName string) (int, error) {
			return c.AddWritePerm(cmd.Context(), addr, brokerName)
		})
}

// newGetNamesrvConfigCommand is `mqadmin getNamesrvConfig`: each name server's configuration
// (GET_NAMESRV_CONFIG) under a banner, "%-50s=  %s" per key, as Java prints it.
func newGetNamesrvConfigCommand(env *adminEnv) *cobra.Command {
	return &cobra.Command{
		Use:   "getNamesrvConfig",
		Short: "Get configs of name server",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			addrs := env.namesrvAddrs()
			if len(addrs) == 0 {
				return admin.ErrNoNamesrv
			}
			c := env.client()
			defer c.Close()
			w := cmd.OutOrStdout()
			var errs []error
			for _, addr := range addrs {
				props, err := c.NamesrvConfig(cmd.Context(), addr)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				fmt.Fprintf(w, "============%s============\n", addr)
				for _, p := range props {
					fmt.Fprintf(w, "%-50s=  %s\n", p.Key, p.Value)
				}
			}
			return errors.Join(errs...)
		},
	}
}

// newUpdateNamesrvConfigCommand is `mqadmin updateNamesrvConfig -k key -v value`: the key changes
// on every name server (UPDATE_NAMESRV_CONFIG). Only the keys the name server reads on every
// request change at run time (docs/mqadmin.md); paths and the black list never do.
func newUpdateNamesrvConfigCommand(env *adminEnv) *cobra.Command {
	var key, value string
	cmd := &cobra.Command{
		Use:   "updateNamesrvConfig",
		Short: "Update configs of name server",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			key, value = strings.TrimSpace(key), strings.TrimSpace(value)
			c := env.client()
			defer c.Close()
			if err := c.UpdateNamesrvConfig(cmd.Context(), []body.Property{{Key: key, Value: value}}, nil); err != nil {
				return err
			}
			servers := ""
			if env.namesrv != "" { // Java prints the list it was given with -n
				servers = "[" + strings.Join(env.namesrvAddrs(), ", ") + "]"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "update name server config success!%s\n%s : %s\n", servers, key, value)
			return nil
		},
	}
	cmd.Flags().StringVarP(&key, "key", "k", "", "config key")
	cmd.Flags().StringVarP(&value, "value", "v", "", "config value")
	_ = cmd.MarkFlagRequired("key")
	_ = cmd.MarkFlagRequired("value")
	return cmd
}
