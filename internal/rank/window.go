package rank

// Depth is the fixed candidate depth of the ranked searches (C.4): each
// computes one ordering of at most Depth entries and cuts every page from
// it, so paging never reorders and never reaches past the depth.
const Depth = 100

// Window is the page [Offset, Offset+Limit) of a ranking, as checked by the
// caller (Limit at least 1, Offset not negative).
type Window struct {
	Offset, Limit int
}

// PastDepth reports whether the window reaches past Depth: the response
// says so (rank_depth_limit, C.4).
func (w Window) PastDepth() bool { return w.Offset+w.Limit > Depth }

// Empty reports whether the window starts at or past Depth: its page is
// empty whatever is stored, so no search needs to run.
func (w Window) Empty() bool { return w.Offset >= Depth }

// Cut returns the window's part of a ranking (nil when it starts past the
// end).
func Cut[T any](s []T, w Window) []T {
	if w.Offset >= len(s) {
		return nil
	}
	return s[w.Offset:min(w.Offset+w.Limit, len(s))]
}
