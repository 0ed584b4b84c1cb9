package commitlog

// PutStatus is the outcome of a put, mirroring Java's PutMessageStatus.
type PutStatus int

// Put outcomes.
const (
	PutOK PutStatus = iota
	FlushDiskTimeout
	FlushSlaveTimeout
	SlaveNotAvailable
	ServiceNotAvailable
	CreateMappedFileFailed
	MessageIllegal
	PropertiesSizeExceeded
	OSPageCacheBusy
	UnknownError
)

var putStatusNames = [...]string{
	PutOK:                  "PUT_OK",
	FlushDiskTimeout:       "FLUSH_DISK_TIMEOUT",
	FlushSlaveTimeout:      "FLUSH_SLAVE_TIMEOUT",
	SlaveNotAvailable:      "SLAVE_NOT_AVAILABLE",
	ServiceNotAvailable:    "SERVICE_NOT_AVAILABLE",
	CreateMappedFileFailed: "CREATE_MAPEDFILE_FAILED",
	MessageIllegal:         "MESSAGE_ILLEGAL",
	PropertiesSizeExceeded: "PROPERTIES_SIZE_EXCEEDED",
	OSPageCacheBusy:        "OS_PAGECACHE_BUSY",
	UnknownError:           "UNKNOWN_ERROR",
}

// String is the Java enum name.
func (s PutStatus) String() string {
	if s >= 0 && int(s) < len(putStatusNames) {
		return putStatusNames[s]
	}
	return "PutStatus(?)"
}

// Stored reports whether the message is in the log (possibly not yet durable or
// replicated): PutOK and the flush/slave statuses.
func (s PutStatus) Stored() bool {
	return s == PutOK || s == FlushDiskTimeout || s == FlushSlaveTimeout || s == SlaveNotAvailable
}
