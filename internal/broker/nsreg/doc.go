// Package nsreg keeps a broker registered with its nameservers: REGISTER_BROKER with the topic table
// to every address at start, every registerNameServerPeriod and whenever topics change, and
// UNREGISTER_BROKER from every address on shutdown.
package nsreg
