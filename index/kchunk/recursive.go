package kchunk

import "strings"

// recursive is the Recursive strategy (B3, LangChain's _merge_splits with
// token lengths): split on the first separator that occurs, merge the
// pieces greedily up to MaxTokens keeping up to Overlap tokens of the
// previous chunk's tail, recurse into a piece that is too large with the
// next separators, and hard-cut by tokens when none is left. A chunk under
// MinTokens is then merged into its neighbour when the result still fits.
func (c *chunker) recursive(all span) ([]span, error) {
	spans, err := c.split(all, RecursiveSeparators, c.r.max)
	if err != nil {
		return nil, err
	}
	return c.mergeSmall(spans, c.r.max), nil
}

// split returns trimmed spans of s, each of at most max tokens.
func (c *chunker) split(s span, seps []string, max int) ([]span, error) {
	if err := c.ctx.Err(); err != nil {
		return nil, err
	}
	s = c.trim(s)
	if s.start >= s.end {
		return nil, nil
	}
	if c.tokens(s) <= max {
		return []span{s}, nil
	}
	text := c.text[s.start:s.end]
	k := 0
	for k < len(seps) && !strings.Contains(text, seps[k]) {
		k++
	}
	if k == len(seps) {
		return c.hardCut(s, max), nil
	}
	sep := seps[k]
	// The separator's non-space characters (the period of ". ") stay with
	// the piece before it, so no visible character falls between chunks.
	keep := len(strings.TrimRight(sep, " \t\n"))
	var parts []span
	at := s.start
	for {
		i := strings.Index(c.text[at:s.end], sep)
		if i < 0 {
			parts = append(parts, span{at, s.end})
			break
		}
		parts = append(parts, span{at, at + i + keep})
		at += i + len(sep)
	}
	// Count, not Count's whitespace rule: a dropped "\n" is still a token.
	sepTokens := len(c.r.tok.Encode(sep[keep:]))
	var out, buf []span
	var bufTokens []int
	total := 0
	flush := func() error {
		if len(buf) == 0 {
			return nil
		}
		m := c.trim(span{buf[0].start, buf[len(buf)-1].end})
		if m.start >= m.end {
			return nil
		}
		if c.tokens(m) > max {
			// The sum of the parts' counts underestimated the joined text
			// (rare: the pre-tokeniser mostly splits at separators): cut
			// it with the next separators, and carry no overlap past it so
			// chunks stay in order.
			sub, err := c.split(m, seps[k+1:], max)
			if err != nil {
				return err
			}
			out = append(out, sub...)
			buf, bufTokens, total = buf[:0], bufTokens[:0], 0
			return nil
		}
		out = append(out, m)
		return nil
	}
	for _, p := range parts {
		p = c.trim(p)
		if p.start >= p.end {
			continue
		}
		pt := c.tokens(p)
		if pt > max {
			if err := flush(); err != nil {
				return nil, err
			}
			buf, bufTokens, total = buf[:0], bufTokens[:0], 0
			sub, err := c.split(p, seps[k+1:], max)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
			continue
		}
		join := 0
		if len(buf) > 0 {
			join = sepTokens
		}
		if len(buf) > 0 && total+join+pt > max {
			if err := flush(); err != nil {
				return nil, err
			}
			for len(buf) > 0 && (total > c.r.overlap || total+sepTokens+pt > max) {
				total -= bufTokens[0]
				if len(buf) > 1 {
					total -= sepTokens
				}
				buf, bufTokens = buf[1:], bufTokens[1:]
			}
			join = 0
			if len(buf) > 0 {
				join = sepTokens
			}
		}
		buf = append(buf, p)
		bufTokens = append(bufTokens, pt)
		total += join + pt
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

// hardCut cuts s every max tokens (no separator left to split on).
func (c *chunker) hardCut(s span, max int) []span {
	var out []span
	for pos := s.start; pos < s.end; {
		end := c.window(pos, s.end, max)
		if t := c.trim(span{pos, end}); t.start < t.end {
			out = append(out, t)
		}
		pos = end
	}
	return out
}

// mergeSmall replaces a chunk under MinTokens by the source slice from
// the previous chunk's start to its end (the first one merges into the
// next), when that slice fits in max tokens; otherwise it stays small.
func (c *chunker) mergeSmall(spans []span, max int) []span {
	out := make([]span, 0, len(spans))
	for i := 0; i < len(spans); i++ {
		s := spans[i]
		if c.tokens(s) >= c.r.min {
			out = append(out, s)
			continue
		}
		if n := len(out); n > 0 {
			m := span{out[n-1].start, max2(out[n-1].end, s.end)}
			if c.tokens(m) <= max {
				out[n-1] = m
				continue
			}
		}
		if i+1 < len(spans) {
			m := span{s.start, max2(s.end, spans[i+1].end)}
			if c.tokens(m) <= max {
				spans[i+1] = m
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

func max2(a, b int) int {
	if a > b {
		return a
	}
	return b
}
