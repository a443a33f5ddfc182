package contextd

import (
	"github.com/contextd/contextd/internal/request"
)

// Caller input is parsed and validated by package internal/request; this
// file hands it the engine's configuration.

// builtFilter is a validated SearchFilter; filterProblem is a filter
// failure reported inside a search response.
type (
	builtFilter   = request.Filter
	filterProblem = request.Problem
)

// buildFilter validates the structural filters. Date and unstorable-string
// problems are errors; cap and metadata problems come back as a
// filterProblem for the structured response.
func (e *Engine) buildFilter(f SearchFilter) (*builtFilter, *filterProblem, error) {
	return request.BuildFilter(f)
}

// requestOptions is the engine configuration the validators read, for
// caller p; batch selects the wording of the batch tools.
func (e *Engine) requestOptions(p Principal, batch bool) request.Options {
	return request.Options{
		IndexedFields:     e.indexed,
		MaxImageSizeMB:    e.cfg.MaxImageSizeMB,
		MaxTotalSizeMB:    e.cfg.MaxTotalSizeMB,
		MaxTextChars:      e.cfg.MaxTextChars,
		DefaultVisibility: e.cfg.DefaultVisibility,
		PublishRole:       e.cfg.PublishRole,
		MayPublish:        e.cfg.PublishRole != "" && p.hasRole(e.cfg.PublishRole),
		Batch:             batch,
	}
}
