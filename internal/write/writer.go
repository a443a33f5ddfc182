package write

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/internal/generate"
	"github.com/contextd/contextd/internal/ids"
	"github.com/contextd/contextd/persist"
)

// Principal is the caller of a write: its id and groups, which decide what
// it may read, and whether it may make entries public (it holds
// Options.PublishRole).
type Principal struct {
	ID         string
	Groups     []string
	MayPublish bool
}

func (p Principal) access() persist.Access {
	return persist.Access{Principal: p.ID, Groups: p.Groups}
}

// Options configure a Writer. The zero value means the wall clock,
// monotonic UUIDv7 ids, no default group grants, no anonymous principal
// and no publish role.
type Options struct {
	// Now and NewID are seams for tests.
	Now   func() time.Time
	NewID func() string
	// AuthorGroupGrants is DEFAULT_GROUP_GRANTS=author_groups: a new entry
	// grants read to every group of its author.
	AuthorGroupGrants bool
	// AnonymousPrincipal, when set, names the read-only principal, which
	// no user grant may name: publishing is the way to reach it.
	AnonymousPrincipal string
	// PublishRole is ACCESS_CONTROL_PUBLISH_ROLE ("" = anyone may publish).
	PublishRole string
}

// Generator produces the model artifacts of a text before the transaction
// (*generate.Generator).
type Generator interface {
	Generate(ctx context.Context, job generate.Job) (*generate.Result, error)
	Reuse(ctx context.Context, st generate.VectorReader, job generate.Job, cand *persist.Entry) (generate.Job, error)
	Summarizer() generate.Summarizer
	Embedder() generate.Embedder
}

// Writer applies the changes of one engine to its store. It is safe for
// concurrent use.
type Writer struct {
	st  persist.Store
	gen Generator
	o   Options
}

// New returns a Writer over st; a nil gen generates nothing.
func New(st persist.Store, gen Generator, o Options) *Writer {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NewID == nil {
		o.NewID = ids.NewGenerator(nil).Next
	}
	if gen == nil {
		gen = generate.New(generate.Options{})
	}
	return &Writer{st: st, gen: gen, o: o}
}

// now is the UTC time stamped on a change.
func (w *Writer) now() time.Time { return w.o.Now().UTC() }

// engineErr returns engine errors as they are and wraps the others.
func engineErr(op string, err error) error {
	var ee *cerrors.Error
	if errors.As(err, &ee) {
		return ee
	}
	return fmt.Errorf("%s: %w", op, err)
}
