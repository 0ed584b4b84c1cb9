package protocol

import "strconv"

// FieldError says which ext field was missing or malformed.
type FieldError struct {
	Field   string
	Value   string // the text found; empty when missing
	Missing bool
	Reason  string // "is not a number", "is out of range"; empty when missing
}

func (e *FieldError) Error() string {
	if e.Missing {
		return "the custom field <" + e.Field + "> is null"
	}
	return "the custom field <" + e.Field + "> " + e.Reason + ": " + strconv.Quote(e.Value)
}
