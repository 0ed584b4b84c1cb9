package mqadmin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// newQueryMsgByIDCommand is `mqadmin queryMsgById -i ID[,ID...] [-t topic] [-f charset]`: each
// message in full, as Java prints it: its fields, the path of a file holding its body, the body
// itself with -f, and how far each consumer group got with it. An offset message id holds the
// storing broker's address and CommitLog offset, so the broker is asked directly
// (VIEW_MESSAGE_BY_ID); with -t (RocketMQ 5) an id is also looked up as a unique key (UNIQ_KEY) in
// the topic's brokers.
func newQueryMsgByIDCommand(env *adminEnv) *cobra.Command {
	var ids, topic, charset, cluster string
	cmd := &cobra.Command{
		Use:   "queryMsgById",
		Short: "Query Message by Id",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var decode func([]byte) string
			if cmd.Flags().Changed("bodyFormat") {
				var err error
				if decode, err = charsetDecoder(charset); err != nil {
					return err
				}
			}
			c := env.client()
			defer c.Close()
			var errs []error
			for _, id := range strings.Split(ids, ",") {
				if id = strings.TrimSpace(id); id == "" {
					continue
				}
				m, err := findMessage(cmd.Context(), c, strings.TrimSpace(topic), id)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				if err := printMessageDetail(cmd.Context(), cmd.OutOrStdout(), c, env, m, decode); err != nil {
					errs = append(errs, err)
				}
			}
			return errors.Join(errs...)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&ids, "msgId", "i", "", "Message Id (offset message ids, or unique keys with -t), comma separated")
	fl.StringVarP(&topic, "topic", "t", "", "topic name (RocketMQ 5; needed for unique keys)")
	fl.StringVarP(&charset, "bodyFormat", "f", "UTF-8", "print message body by the specified format")
	fl.StringVarP(&cluster, "cluster", "c", "", "Cluster name (RocketMQ 5; accepted, the route of -t is used)")
	_ = cmd.MarkFlagRequired("msgId")
	return cmd
}

// findMessage reads a message by offset id; with a topic, a unique key of the topic first (an
// id of 32 hex digits may be either, and the host an offset id names may not exist: Java tries
// the offset id first and falls back after it fails).
func findMessage(ctx context.Context, c *admin.Client, topic, id string) (*message.MessageExt, error) {
	if topic == "" {
		return c.ViewMessageByOffsetID(ctx, id)
	}
	msgs, err := c.QueryMessageByUniqKey(ctx, topic, id)
	if len(msgs) > 0 {
		return msgs[0], nil
	}
	if _, _, perr := message.ParseOffsetMsgID(id); perr != nil {
		return nil, err
	}
	m, viewErr := c.ViewMessageByOffsetID(ctx, id)
	if viewErr != nil {
		return nil, errors.Join(err, viewErr)
	}
	return m, nil
}

// printMessageDetail is Java's QueryMsgByIdSubCommand.printMsg: the fields, "Message Body Path:"
// (the body written to <tmp>/msgbodys/<id>), the body in decode's charset when set, then each
// consumer group's track (MessageTracks), or "WARN: No Consumer".
func printMessageDetail(ctx context.Context, w io.Writer, c *admin.Client, env *adminEnv, m *message.MessageExt,
	decode func([]byte) string) error {
	path, err := writeBodyFile(env, m)
	if err != nil {
		return err
	}
	line := func(label, value string) { fmt.Fprintf(w, "%-20s %s\n", label, value) }
	line("OffsetID:", m.OffsetMsgID())
	line("Topic:", m.Topic)
	line("Tags:", "["+javaNull(m.Props, message.PropertyTags)+"]")
	line("Keys:", "["+javaNull(m.Props, message.PropertyKeys)+"]")
	line("Queue ID:", strconv.Itoa(int(m.QueueID)))
	line("Queue Offset:", strconv.FormatInt(m.QueueOffset, 10))
	line("CommitLog Offset:", strconv.FormatInt(m.PhysicalOffset, 10))
	line("Reconsume Times:", strconv.Itoa(int(m.ReconsumeTimes)))
	line("Born Timestamp:", humanTime(m.BornTimestamp))
	line("Store Timestamp:", humanTime(m.StoreTimestamp))
	line("Born Host:", m.BornHost.String())
	line("Store Host:", m.StoreHost.String())
	line("System Flag:", strconv.Itoa(int(m.SysFlag)))
	line("Properties:", propertiesText(m.Props))
	line("Message Body Path:", path)
	if decode != nil {
		line("Message Body:", decode(plainBody(m)))
	}
	tracks, err := c.MessageTracks(ctx, m)
	if err != nil {
		return err
	}
	if len(tracks) == 0 {
		fmt.Fprint(w, "\n\nWARN: No Consumer\n")
		return nil
	}
	fmt.Fprint(w, "\n\n")
	for _, t := range tracks {
		fmt.Fprintln(w, t)
	}
	return nil
}

// javaNull is a property's value, or "null" when the message has none, as Java prints it.
func javaNull(props map[string]string, key string) string {
	if v, ok := props[key]; ok {
		return v
	}
	return "null"
}

// hexID is a message id safe to name a file by.
var hexID = regexp.MustCompile(`^[0-9A-Fa-f]{1,64}$`)

// writeBodyFile writes the message's body to <tmp>/msgbodys/<id> (Java: /tmp/rocketmq/msgbodys)
// and returns the path. The id is the UNIQ_KEY when it is hex, else the offset id, which this
// side computes: nothing from the wire reaches the path unchecked.
func writeBodyFile(env *adminEnv, m *message.MessageExt) (string, error) {
	name := m.UniqKey()
	if !hexID.MatchString(name) {
		name = m.OffsetMsgID()
	}
	dir := filepath.Join(env.tmpDir, "msgbodys")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, plainBody(m), 0o644); err != nil {
		return "", err
	}
	return path, nil
}
