package query

import (
	"fmt"
	"testing"
)

func TestFields(t *testing.T) {
	for q, want := range map[string]string{
		`a "b c" d`:        `[a "b c" d]`,
		`"open a`:          `["open a]`,
		`x"y z"`:           `[x"y z"]`,
		"a\u00a0b\tc":      `[a b c]`,
		`"" "  " -x`:       `["" "  " -x]`,
		`   `:              `[]`,
		`"a b"c`:           `["a b" c]`,
		`fmt.Println("x")`: `[fmt.Println("x")]`,
	} {
		toks, quoted := Fields(q)
		out := "["
		for i, tk := range toks {
			if i > 0 {
				out += " "
			}
			if quoted[i] {
				tk = `"` + tk + `"`
			}
			out += tk
		}
		if out += "]"; out != want {
			t.Errorf("Fields(%q) = %s, want %s", q, out, want)
		}
	}
}

func TestWebsearch(t *testing.T) {
	for q, want := range map[string]string{
		`a b`:                    `[[{a false false} {b false false}]]`,
		`a b or c`:               `[[{a false false} {b false false}] [{c false false}]]`,
		`or a OR`:                `[[{a false false}]]`,
		`"x y" -z -"p q"`:        `[[{x y true false} {z false true} {p q true true}]]`,
		`"unclosed phrase`:       `[[{unclosed phrase true false}]]`,
		`w"q r"s`:                `[[{w false false} {q r true false} {s false false}]]`,
		`a or or b`:              `[[{a false false}] [{b false false}]]`,
		"":                       `[]`,
		`"or" -or`:               `[[{or true false} {or false true}]]`,
		"tab\tsep\nnew\rline  x": `[[{tab false false} {sep false false} {new false false} {line false false} {x false false}]]`,
	} {
		if got := fmt.Sprint(Websearch(q)); got != want {
			t.Errorf("Websearch(%q) = %s, want %s", q, got, want)
		}
	}
}
