package mqadmin

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// newConsumerStatusCommand is `mqadmin consumerStatus -g group [-i clientId] [-b brokerAddr]
// [-s]`: each online member's internal state (GET_CONSUMER_RUNNING_INFO, relayed by a broker),
// written to <now>/<clientId> in the working directory as Java's tool does, then whether the
// members subscribe alike and which queues look blocked; with -i one member's state on stdout.
// -s asks for the members' thread dumps (Java clients only).
func newConsumerStatusCommand(env *adminEnv) *cobra.Command {
	var group, clientID, addr string
	var jstack bool
	cmd := &cobra.Command{
		Use:   "consumerStatus",
		Short: "Query consumer's internal data structure",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			group, clientID, addr = strings.TrimSpace(group), strings.TrimSpace(clientID), strings.TrimSpace(addr)
			c := env.client()
			defer c.Close()
			ctx, w := cmd.Context(), cmd.OutOrStdout()
			if clientID != "" {
				info, err := c.ConsumerRunningInfo(ctx, addr, group, clientID, jstack)
				if err != nil {
					return err
				}
				fmt.Fprint(w, formatRunningInfo(info))
				return nil
			}
			cc, err := consumerConnection(ctx, c, addr, group)
			if err != nil {
				return err
			}
			return printMemberStatus(ctx, w, c, env, cc, addr, group, jstack)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&group, "consumerGroup", "g", "", "consumer group name")
	fl.StringVarP(&clientID, "clientId", "i", "", "The consumer's client id")
	fl.StringVarP(&addr, "brokerAddr", "b", "", "broker address")
	fl.BoolVarP(&jstack, "jstack", "s", false, "Run jstack command in the consumer progress")
	_ = cmd.MarkFlagRequired("consumerGroup")
	return cmd
}

// consumerConnection is the group's members, from one broker or from those that know it.
func consumerConnection(ctx context.Context, c *admin.Client, addr, group string) (*body.ConsumerConnection, error) {
	if addr != "" {
		return c.ConsumerConnection(ctx, addr, group)
	}
	return c.ExamineConsumerConnection(ctx, group)
}

// printMemberStatus writes a line per member whose state was saved, then Java's analysis.
func printMemberStatus(ctx context.Context, w io.Writer, c *admin.Client, env *adminEnv, cc *body.ConsumerConnection,
	addr, group string, jstack bool) error {
	dir := strconv.FormatInt(env.now().UnixMilli(), 10)
	fmt.Fprintf(w, "%-10s %-40s %-20s %s\n", "#Index", "#ClientId", "#Version", "#ConsumerRunningInfoFile")
	infos := map[string]*admin.ConsumerRunningInfo{}
	conns := slices.Clone(cc.ConnectionSet)
	slices.SortFunc(conns, func(a, b body.Connection) int { return strings.Compare(a.ClientID, b.ClientID) })
	i := 1
	for _, conn := range conns {
		info, err := c.ConsumerRunningInfo(ctx, addr, group, conn.ClientID, jstack)
		if err != nil {
			fmt.Fprintf(w, "%s: %v\n", conn.ClientID, err) // Java prints the stack trace and goes on
			continue
		}
		rel := filepath.Join(dir, fileSafe(conn.ClientID))
		if err := writeFile(filepath.Join(env.workDir, rel), formatRunningInfo(info)); err != nil {
			return err
		}
		infos[conn.ClientID] = info
		fmt.Fprintf(w, "%-10d %-40s %-20s %s\n", i, conn.ClientID, admin.VersionDesc(conn.Version), rel)
		i++
	}
	if len(infos) == 0 {
		return nil
	}
	if !sameSubscription(infos, env.now()) {
		fmt.Fprint(w, "\n\nWARN: Different subscription in the same group of consumer!!!\n")
		return nil
	}
	fmt.Fprint(w, "\n\nSame subscription in the same group of consumer")
	fmt.Fprint(w, "\n\nRebalance OK\n")
	for _, id := range slices.Sorted(maps.Keys(infos)) {
		fmt.Fprint(w, blockedQueues(id, infos[id], env.now()))
	}
	return nil
}

// fileSafe is a client id fit to name a file: characters other than letters, digits and
// "@._-" become '_' (client ids come from the wire).
func fileSafe(id string) string {
	b := []byte(id)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '@' || c == '.' || c == '_' || c == '-'
		if !ok {
			b[i] = '_'
		}
	}
	if s := string(b); s != "" && s != "." && s != ".." {
		return s
	}
	return "_"
}

func writeFile(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// isPush reports a push consumer (PROP_CONSUME_TYPE CONSUME_PASSIVELY).
func isPush(info *admin.ConsumerRunningInfo) bool {
	return info.Properties["PROP_CONSUME_TYPE"] == body.ConsumePassively
}

// sameSubscription is Java's analyzeSubscription: push consumers started over two minutes ago
// must all subscribe alike.
func sameSubscription(infos map[string]*admin.ConsumerRunningInfo, now time.Time) bool {
	ids := slices.Sorted(maps.Keys(infos))
	first := infos[ids[0]]
	started, _ := strconv.ParseInt(first.Properties["PROP_CONSUMER_START_TIMESTAMP"], 10, 64)
	if !isPush(first) || now.UnixMilli()-started <= 2*60*1000 {
		return true
	}
	for _, id := range ids[1:] {
		if !slices.EqualFunc(first.SubscriptionSet, infos[id].SubscriptionSet, sameSubscriptionData) {
			return false
		}
	}
	return true
}

func sameSubscriptionData(a, b body.SubscriptionData) bool {
	return a.Topic == b.Topic && a.SubString == b.SubString && a.ExpressionType == b.ExpressionType &&
		a.ClassFilterMode == b.ClassFilterMode && slices.Equal(a.TagsSet, b.TagsSet)
}

// blockedQueues is Java's analyzeProcessQueue: a push consumer's queues that look stuck.
func blockedQueues(clientID string, info *admin.ConsumerRunningInfo, now time.Time) string {
	if !isPush(info) {
		return ""
	}
	orderly := parseJavaBool(info.Properties["PROP_CONSUMEORDERLY"])
	var b strings.Builder
	ms := now.UnixMilli()
	for _, mq := range slices.SortedFunc(maps.Keys(info.MQTable), body.MessageQueue.Compare) {
		pq := info.MQTable[mq]
		switch {
		case orderly && !pq.Locked:
			fmt.Fprintf(&b, "%s %s can't lock for a while, %dms\n", clientID, mqString(mq), ms-pq.LastLockTimestamp)
		case orderly && pq.Droped && pq.TryUnlockTimes > 0:
			fmt.Fprintf(&b, "%s %s unlock %d times, still failed\n", clientID, mqString(mq), pq.TryUnlockTimes)
		case !orderly && ms-pq.LastConsumeTimestamp > 60*1000 && pq.CachedMsgCount > 0:
			fmt.Fprintf(&b, "%s %s can't consume for a while, maybe blocked, %dms\n", clientID, mqString(mq), ms-pq.LastConsumeTimestamp)
		}
	}
	return b.String()
}

// formatRunningInfo is Java 4.9's ConsumerRunningInfo.formatString.
func formatRunningInfo(info *admin.ConsumerRunningInfo) string {
	var b strings.Builder
	b.WriteString("#Consumer Properties#\n")
	for _, k := range slices.Sorted(maps.Keys(info.Properties)) {
		fmt.Fprintf(&b, "%-40s: %s\n", k, info.Properties[k])
	}
	b.WriteString("\n\n#Consumer Subscription#\n")
	for i, s := range info.SubscriptionSet {
		fmt.Fprintf(&b, "%03d Topic: %-40s ClassFilter: %-8t SubExpression: %s\n", i+1, s.Topic, s.ClassFilterMode, s.SubString)
	}
	mqs := slices.SortedFunc(maps.Keys(info.MQTable), body.MessageQueue.Compare)
	b.WriteString("\n\n#Consumer Offset#\n")
	fmt.Fprintf(&b, "%-64s  %-32s  %-4s  %-20s\n", "#Topic", "#Broker Name", "#QID", "#Consumer Offset")
	for _, mq := range mqs {
		fmt.Fprintf(&b, "%-32s  %-32s  %-4d  %-20d\n", mq.Topic, mq.BrokerName, mq.QueueID, info.MQTable[mq].CommitOffset)
	}
	b.WriteString("\n\n#Consumer MQ Detail#\n")
	fmt.Fprintf(&b, "%-64s  %-32s  %-4s  %-20s\n", "#Topic", "#Broker Name", "#QID", "#ProcessQueueInfo")
	for _, mq := range mqs {
		fmt.Fprintf(&b, "%-64s  %-32s  %-4d  %s\n", mq.Topic, mq.BrokerName, mq.QueueID, processQueueText(info.MQTable[mq]))
	}
	b.WriteString("\n\n#Consumer RT&TPS#\n")
	fmt.Fprintf(&b, "%-64s  %14s %14s %14s %14s %18s %25s\n", "#Topic", "#Pull RT", "#Pull TPS", "#Consume RT",
		"#ConsumeOK TPS", "#ConsumeFailed TPS", "#ConsumeFailedMsgsInHour")
	for _, topic := range slices.Sorted(maps.Keys(info.StatusTable)) {
		s := info.StatusTable[topic]
		fmt.Fprintf(&b, "%-32s  %14.2f %14.2f %14.2f %14.2f %18.2f %25d\n", topic, s.PullRT, s.PullTPS, s.ConsumeRT,
			s.ConsumeOKTPS, s.ConsumeFailedTPS, s.ConsumeFailedMsgs)
	}
	if info.Jstack != "" {
		b.WriteString("\n\n#Consumer jstack#\n")
		b.WriteString(info.Jstack)
	}
	return b.String()
}

// processQueueText is Java's ProcessQueueInfo.toString.
func processQueueText(pq admin.ProcessQueueInfo) string {
	return fmt.Sprintf("ProcessQueueInfo [commitOffset=%d, cachedMsgMinOffset=%d, cachedMsgMaxOffset=%d, cachedMsgCount=%d, "+
		"cachedMsgSizeInMiB=%d, transactionMsgMinOffset=%d, transactionMsgMaxOffset=%d, transactionMsgCount=%d, locked=%t, "+
		"tryUnlockTimes=%d, lastLockTimestamp=%s, droped=%t, lastPullTimestamp=%s, lastConsumeTimestamp=%s]",
		pq.CommitOffset, pq.CachedMsgMinOffset, pq.CachedMsgMaxOffset, pq.CachedMsgCount, pq.CachedMsgSizeInMiB,
		pq.TransactionMsgMinOffset, pq.TransactionMsgMaxOffset, pq.TransactionMsgCount, pq.Locked, pq.TryUnlockTimes,
		compactTime(pq.LastLockTimestamp), pq.Droped, compactTime(pq.LastPullTimestamp), compactTime(pq.LastConsumeTimestamp))
}

// compactTime is Java's UtilAll.timeMillisToHumanString: yyyyMMddHHmmssSSS in local time.
func compactTime(ms int64) string {
	t := time.UnixMilli(ms)
	return t.Format("20060102150405") + fmt.Sprintf("%03d", t.Nanosecond()/int(time.Millisecond))
}
