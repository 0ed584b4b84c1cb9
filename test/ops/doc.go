// Package ops holds black-box tests of what an operator does with the binaries and the files of
// deploy/: stopping the servers (Ctrl-C on `make run` while a producer sends, SIGTERM and SIGINT,
// a second signal during shutdown, mqshutdown) and finding the store clean on the next start;
// --version; log rotation and SIGHUP; the /healthz and /readyz probes; and the container image,
// systemd units and Kubernetes manifests, which must parse and whose probes must be paths the
// servers serve. README.md lists what each test asserts.
package ops
