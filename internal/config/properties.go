package config

import "github.com/rocketgo/rocketgo/pkg/protocol/body"

// Property is one key/value pair read from a Java-properties text (body.Property: the parser
// lives with the wire bodies, which UPDATE_BROKER_CONFIG and UPDATE_NAMESRV_CONFIG carry in the
// same format).
type Property = body.Property

// ParseProperties reads data with the rules of java.util.Properties.load (body.ParseProperties).
func ParseProperties(data []byte) ([]Property, error) { return body.ParseProperties(data) }
