// Package topic is the broker's topic table (Java TopicConfigManager): the built-in topics, the
// topics operators and producers create, and their persistence in <storePathRootDir>/config/
// topics.json as {"topicConfigTable":{...},"dataVersion":{...}}.
//
// Every change bumps the DataVersion (the name server compares it to decide whether a broker's
// topics changed), rewrites topics.json through configfile, and calls Options.OnChange so the
// broker can register the new topic with the name servers at once.
//
// Producers create topics implicitly: a send to an unknown topic names a default topic (TBW102,
// or a cluster or broker name) and CreateTopicInSendMessage derives the new topic from it when the
// default topic has the inherit permission (protocol.md §2.3).
package topic
