// Package schedule delivers delayed messages (RocketMQ's ScheduleMessageService). A message sent
// with a delay level is stored in SCHEDULE_TOPIC_XXXX, queue level−1, with its real topic and queue
// in REAL_TOPIC/REAL_QID; the service reads each level's queue in order and, once a message is
// due, stores it again in its real topic. The read position of each level is kept in
// config/delayOffset.json.
package schedule
