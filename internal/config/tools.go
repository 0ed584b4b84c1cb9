package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/viper"
)

// ToolsFile is where Apache RocketMQ's admin tools read their ACL credentials, under
// ROCKETMQ_HOME (MixAll.ACL_CONF_TOOLS_FILE).
const ToolsFile = "conf/tools.yml"

// Tools is a tools.yml: the account mqadmin signs its requests with when the brokers have
// aclEnable (Java AclUtils.getAclRPCHook).
type Tools struct {
	AccessKey string
	SecretKey string
}

// Signs reports whether the credentials are complete: Java signs nothing when either is blank.
func (t Tools) Signs() bool {
	return strings.TrimSpace(t.AccessKey) != "" && strings.TrimSpace(t.SecretKey) != ""
}

// ToolsPath is $ROCKETMQ_HOME/conf/tools.yml, or "" when ROCKETMQ_HOME is not set.
func ToolsPath(getenv func(string) string) string {
	home := getenv(EnvRocketMQHome)
	if home == "" {
		return ""
	}
	return filepath.Join(home, ToolsFile)
}

// LoadTools reads a tools.yml (YAML with accessKey and secretKey at the top level, as Apache
// ships it). A missing file is no credentials, as in Java; a file that is not YAML is an error.
func LoadTools(path string) (Tools, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Tools{}, nil
	}
	if err != nil {
		return Tools{}, fmt.Errorf("config: read %s: %w", path, err)
	}
	v := viper.New()
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
		return Tools{}, fmt.Errorf("config: %s: %w", path, err)
	}
	return Tools{AccessKey: strings.TrimSpace(v.GetString("accessKey")), SecretKey: strings.TrimSpace(v.GetString("secretKey"))}, nil
}
