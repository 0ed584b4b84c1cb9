package protocol

// plainPrefix returns the length of the longest prefix of s that a JSON
// string carries as it is: no '"', no '\\', no control character. It tests
// eight bytes at a time.
func plainPrefix[T string | []byte](s T) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	i := 0
	for ; len(s)-i >= 8; i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		quote := x ^ ('"' * ones)
		slash := x ^ ('\\' * ones)
		// A byte below 0x20, or equal to '"' or '\\' (a zero byte after the
		// xor), sets its high bit here; no other byte does.
		if ((x-0x20*ones)&^x|(quote-ones)&^quote|(slash-ones)&^slash)&highs != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return i
		}
	}
	return i
}
