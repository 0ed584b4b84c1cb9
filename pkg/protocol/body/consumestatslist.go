package body

import (
	"encoding/json"
	"fmt"
)

// DecodeConsumeStatsList parses the answer to GET_BROKER_CONSUME_STATS as Java's fastjson writes
// it: each group's ConsumeStats with MessageQueue objects as the offset table's keys.
func DecodeConsumeStatsList(data []byte) (*ConsumeStatsList, error) {
	var raw struct {
		BrokerAddr        string                         `json:"brokerAddr"`
		ConsumeStatsList  []map[string][]json.RawMessage `json:"consumeStatsList"`
		TotalDiff         int64                          `json:"totalDiff"`
		TotalInflightDiff int64                          `json:"totalInflightDiff"`
	}
	if err := Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("body: decode ConsumeStatsList: %w", err)
	}
	l := &ConsumeStatsList{BrokerAddr: raw.BrokerAddr, TotalDiff: raw.TotalDiff, TotalInflightDiff: raw.TotalInflightDiff}
	for _, groups := range raw.ConsumeStatsList {
		m := make(map[string][]ConsumeStats, len(groups))
		for group, stats := range groups {
			for _, s := range stats {
				cs, err := DecodeConsumeStats(s)
				if err != nil {
					return nil, fmt.Errorf("body: decode ConsumeStatsList of group %q: %w", group, err)
				}
				m[group] = append(m[group], *cs)
			}
		}
		l.ConsumeStatsList = append(l.ConsumeStatsList, m)
	}
	return l, nil
}
