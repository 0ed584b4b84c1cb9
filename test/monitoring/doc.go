// Package monitoring checks the monitoring files of deploy/ against the real binaries: the Grafana
// dashboard (deploy/grafana) and the Prometheus alert rules (deploy/prometheus) parse, every
// PromQL expression in them parses, and every metric and label they select is one that a running
// name server, master and slave emit after ordinary traffic.
package monitoring
