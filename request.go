package contextd

import (
	"context"
	"time"

	"github.com/contextd/contextd/internal/pyfmt"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/persist"
)

// Caller input is parsed and validated by package internal/request; the
// forwards below keep the engine's call sites short.

// maxBatch caps the entries, updates and ids of one batch call.
const maxBatch = request.MaxBatch

// builtFilter is a validated SearchFilter; filterProblem is a filter
// failure reported inside a search response.
type (
	builtFilter   = request.Filter
	filterProblem = request.Problem
)

// buildFilter validates the structural filters. Date and unstorable-string
// problems are errors; cap and metadata problems come back as a
// filterProblem for the structured response. SearchFilter converts to
// FilterSpec field for field, so a new filter field must join both.
func (e *Engine) buildFilter(f SearchFilter) (*builtFilter, *filterProblem, error) {
	return request.BuildFilter(request.FilterSpec(f))
}

// requestOptions is the engine configuration the validators read, for
// caller p; batch selects the wording of the batch tools.
func (e *Engine) requestOptions(p Principal, batch bool) request.Options {
	return request.Options{
		IndexedFields:     e.indexed,
		MaxImageSizeMB:    e.cfg.MaxImageSizeMB,
		MaxTotalSizeMB:    e.cfg.MaxTotalSizeMB,
		DefaultVisibility: e.cfg.DefaultVisibility,
		PublishRole:       e.cfg.PublishRole,
		MayPublish:        e.cfg.PublishRole != "" && p.hasRole(e.cfg.PublishRole),
		Batch:             batch,
	}
}

// imageInputs converts request images, keeping nil (absent) nil.
func imageInputs(imgs []ImageInput) []request.ImageInput {
	if imgs == nil {
		return nil
	}
	out := make([]request.ImageInput, len(imgs))
	for i, im := range imgs {
		out[i] = request.ImageInput(im)
	}
	return out
}

func resolveID(ctx context.Context, r persist.Reader, acc persist.Access, raw string) (string, error) {
	return request.ResolveID(ctx, r, acc, raw)
}

func resolveIDs(ctx context.Context, r persist.Reader, acc persist.Access, raws []string) ([]string, error) {
	return request.ResolveIDs(ctx, r, acc, raws)
}

func wrapIDErr(prefix string, err error) error { return request.WrapIDErr(prefix, err) }

func truncate(s string, limit int) (string, bool) { return request.Truncate(s, limit) }

func runeLen(s string) int { return request.RuneLen(s) }

func wireTime(t time.Time) string { return request.WireTime(t) }

func pyStrip(s string) string { return pyfmt.Strip(s) }

func pyQuote(s string) string { return pyfmt.Quote(s) }
