// Package filter compiles and evaluates RocketMQ's SQL92 message selectors (consumer subscriptions
// with expressionType SQL92) against a message's encoded properties.
//
// The grammar and the evaluation rules are those of RocketMQ's SelectorParser and its expression
// classes (taken from ActiveMQ's JMS selectors): three-valued logic where a missing property is
// null, string property values converted to the type of the literal they are compared with, and an
// evaluation failure (a value that does not convert) making the whole selector not match. 5.x's
// CONTAINS, STARTSWITH and ENDSWITH are included. docs/filters.md describes the language.
//
// Compile once per subscription; Expr.Match is safe for concurrent use and does not allocate.
package filter
