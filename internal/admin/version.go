package admin

import "github.com/rocketgo/rocketgo/pkg/protocol"

// VersionDesc names a client or broker version number the way Java's MQVersion.getVersionDesc
// does (409 is V4_9_8); see protocol.VersionDesc.
func VersionDesc(v int) string { return protocol.VersionDesc(v) }
