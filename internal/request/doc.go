// Package request owns the parsing and validation of caller input: the
// structural search filters and metadata filter objects, dates, entry ids,
// tags, images, metadata values and the store and update requests. Every
// function is pure (ResolveID reads ids through a small interface), turns
// raw input into typed values and returns the reference's exact error
// texts as *errors.Error values of kind ErrInvalid, so the engine parses
// once at the top and hands typed values down.
//
//	f, problem, err := request.BuildFilter(request.FilterSpec{Tags: []string{"Go"}, StartDate: "2025-11-29"})
//	// err: a malformed date; problem: cap or metadata problems, reported
//	// inside the search response; f.Filter: the persist filter, f.Applied: 2
//
//	id, err := request.ParseID(" 0190ABCD-EF12-3456-7890-ABCDEF123456 ")
//	// id.Full == "0190abcdef1234567890abcdef123456"
//
// Functions that depend on the engine's configuration take it as Options.
package request

// Limits of the write path.
const (
	MaxThreadIDLen   = 256
	MaxTags          = 100
	MaxTagLen        = 128
	MaxImages        = 10
	MaxIndexedValLen = 512
	MaxBatch         = 100
	MaxFilterItems   = 100
	// DefaultMaxTextChars is the default cap on an entry's text
	// (MAX_TEXT_CHARS): 10 Mi code points.
	DefaultMaxTextChars = 10 << 20
)

// Options is the engine configuration the validators read. The zero value
// means the defaults: no indexed fields, 10MB per image and 100MB in
// total, private by default, anyone may publish, single-tool wording.
type Options struct {
	// IndexedFields maps each indexed metadata field to its type
	// ("string", "integer", "float", "boolean", "array", "object").
	IndexedFields map[string]string
	// MaxImageSizeMB and MaxTotalSizeMB bound decoded images (0 = 10, 100).
	MaxImageSizeMB, MaxTotalSizeMB int
	// DefaultVisibility applies when a store request names none ("" = private).
	DefaultVisibility string
	// PublishRole is the role needed to set visibility public ("" = none);
	// MayPublish says whether the caller has it.
	PublishRole string
	MayPublish  bool
	// Batch selects the wording of the batch tools where it differs.
	Batch bool
	// MaxTextChars caps an entry's stripped text in code points (0 =
	// DefaultMaxTextChars), so one write cannot take the process's memory.
	MaxTextChars int
}

func (o Options) imageLimits() (perImageMB, totalMB int) {
	perImageMB, totalMB = o.MaxImageSizeMB, o.MaxTotalSizeMB
	if perImageMB <= 0 {
		perImageMB = 10
	}
	if totalMB <= 0 {
		totalMB = 100
	}
	return perImageMB, totalMB
}

// The two visibility values.
const (
	VisibilityPrivate = "private"
	VisibilityPublic  = "public"
)
