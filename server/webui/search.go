package webui

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/contextd/contextd"
)

// score is one labelled score of a result.
type score struct {
	Name  string
	Value string
}

// hit is one result of any search mode.
type hit struct {
	E           contextd.EntryView
	Scores      []score
	Passage     *contextd.Passage
	Highlighted *string
}

type searchData struct {
	Q, Mode, FTSMode string
	F                listFilter
	Hits             []hit
	Searched         bool
	Error            string
	Problems         []string
	Warnings         []string
	Info             string
	HasPrev, HasNext bool
	Prev, Next       int
	Semantic, Hybrid bool
}

func num(f float64) string { return strconv.FormatFloat(f, 'g', 4, 64) }

func rank(p *int) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(*p)
}

// searchPage runs the search of the mode the form names (fts, semantic
// or hybrid) with the list's filters, as the matching tool.
func (u *UI) searchPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	f := readFilter(r)
	if q.Get("limit") == "" {
		f.Limit = 10
	}
	d := searchData{Q: q.Get("q"), Mode: q.Get("mode"), FTSMode: q.Get("fts_mode"), F: f,
		Semantic: u.eng.SemanticAvailable(), Hybrid: u.eng.HybridAvailable()}
	if d.Mode != "semantic" && d.Mode != "hybrid" {
		d.Mode = "fts"
	}
	if strings.TrimSpace(d.Q) == "" {
		u.render(w, r, "search", "Search", d)
		return
	}
	d.Searched = true
	sf := f.searchFilter()
	var err error
	switch d.Mode {
	case "fts":
		var res *contextd.FTSSearchResponse
		res, err = u.eng.FTSSearch(ctx, contextd.FTSSearchRequest{SearchFilter: sf, Query: d.Q, Mode: d.FTSMode,
			Limit: f.Limit, Offset: f.Offset, Highlight: true})
		if err == nil {
			d.Error, d.Problems, d.FTSMode = res.Error, res.ValidationErrors, res.Mode
			d.Info = fmt.Sprintf("full text (%s, %s)", res.Mode, res.Language)
			for _, h := range res.Results {
				d.Hits = append(d.Hits, hit{E: h.EntryView, Passage: h.Passage, Highlighted: h.Highlighted,
					Scores: []score{{"BM25", num(h.Scores.FTSScore)}}})
			}
		}
	case "semantic":
		var res *contextd.SemanticSearchResponse
		res, err = u.eng.SemanticSearch(ctx, contextd.SemanticSearchRequest{SearchFilter: sf, Query: d.Q, Limit: f.Limit, Offset: f.Offset})
		if err == nil {
			d.Error, d.Problems = res.Error, res.ValidationErrors
			d.Info = "semantic (" + res.Model + ")"
			for _, h := range res.Results {
				d.Hits = append(d.Hits, hit{E: h.EntryView, Passage: h.Passage,
					Scores: []score{{"distance", num(h.Scores.SemanticDistance)}}})
			}
		}
	case "hybrid":
		var res *contextd.HybridSearchResponse
		res, err = u.eng.HybridSearch(ctx, contextd.HybridSearchRequest{SearchFilter: sf, Query: d.Q, Limit: f.Limit, Offset: f.Offset})
		if err == nil {
			d.Error, d.Problems, d.Warnings = res.Error, res.ValidationErrors, res.Warnings
			d.Info = "hybrid (" + res.FusionMethod + " of " + strings.Join(res.SearchModesUsed, " + ") + ")"
			for _, h := range res.Results {
				s := []score{{"fused", num(h.Scores.RRF)}, {"full-text rank", rank(h.Scores.FTSRank)}, {"semantic rank", rank(h.Scores.SemanticRank)}}
				d.Hits = append(d.Hits, hit{E: h.EntryView, Passage: h.Passage, Scores: s})
			}
		}
	}
	if err != nil {
		w.WriteHeader(statusOf(err))
		d.Error = u.userMessage(err)
	}
	d.HasPrev, d.HasNext = f.Offset > 0, len(d.Hits) == f.Limit
	d.Prev, d.Next = max(f.Offset-f.Limit, 0), f.Offset+f.Limit
	u.render(w, r, "search", "Search", d)
}
