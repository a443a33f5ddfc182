package token

import (
	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
)

// Stem is the Snowball English (Porter2) stem of a folded term, the
// stemmer of the in-process index's English analyzer, of PostgreSQL's
// english configuration and of the built-in reranker. Terms of one or
// two bytes are returned as they are, as Porter2 leaves them.
func Stem(term string) string {
	if len(term) < 3 {
		return term
	}
	env := snowballstem.NewEnv(term)
	english.Stem(env)
	return env.Current()
}
