// Package archtest holds the tests that keep the repository's architecture and its documents
// true. It has no code of its own; `go test ./internal/archtest/...` (part of `make test`) runs:
//
//   - TestImportGraph: lists every package of the module with `go list -json ./...` and fails,
//     naming each offending edge and the rule it broke, when a package imports a module package
//     the import graph of docs/architecture.md does not allow, imports something a deny rule of
//     that graph forbids, or is missing from the graph. The graph is the fenced block tagged
//     `imports` (and `imports-test` for the extra edges of _test.go files); docs/architecture.md
//     explains its syntax.
//   - TestSectionReferences: scans every tracked .go and .md file for section references
//     ("protocol.md §2.6", "docs/security.md §1.6", a list such as "protocol.md §2.4, §3.2") and fails,
//     naming file:line, when the document is not in the repository or has no heading numbered so.
//     A reference that names no document means docs/protocol.md in a .go file and the citing
//     document itself in a .md file.
//   - TestNoOutsideReferences: fails on any tracked text file that points outside the repository
//     at the engineers' shared notes, which are not part of the project.
package archtest
