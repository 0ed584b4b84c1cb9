//go:build tools

// Package tools pins the module's dependencies while packages that use them
// are being written; `go mod tidy` keeps what is listed here.
package tools

import (
	_ "github.com/apache/rocketmq-client-go/v2"
	_ "github.com/apache/rocketmq-client-go/v2/admin"
	_ "github.com/apache/rocketmq-client-go/v2/consumer"
	_ "github.com/apache/rocketmq-client-go/v2/producer"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/prometheus/client_golang/prometheus/promhttp"
	_ "github.com/prometheus/client_golang/prometheus/testutil"
	_ "github.com/spf13/cobra"
	_ "github.com/spf13/viper"
	_ "github.com/stretchr/testify/require"
	_ "go.uber.org/goleak"
	_ "go.uber.org/zap"
	_ "go.uber.org/zap/zaptest"
	_ "golang.org/x/sys/unix"
)
